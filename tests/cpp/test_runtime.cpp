// The C++ runtime (runtime/model.h, c_api.h, npy.h): memory planned at load, no allocation
// per run after the first, outputs the caller keeps left intact, threads, the C API and .npy.
#include <omp.h>

#include <fstream>

#include "deploy_util.h"
#include "tandem/core/allocator.h"
#include "tandem/runtime/c_api.h"
#include "tandem/runtime/model.h"
#include "tandem/runtime/npy.h"

namespace tandem::testing {
namespace {

TEST(Runtime, NoAllocationPerRunAfterTheFirst) {
  SmallNet net;
  runtime::Model model(net.export_file(4, false));
  EXPECT_GT(model.arena_bytes(4), 0);
  Tensor x = rand_tensor({4, 1, 8, 8}, 3);
  model.run({x});
  for (int r = 0; r < 5; ++r) {
    AllocatorStats before = allocator_stats();
    std::vector<Tensor> y = model.run({x});
    y.clear();  // the next run writes into this output again
    AllocatorStats after = allocator_stats();
    EXPECT_EQ(after.num_allocs, before.num_allocs) << "run " << r;
    EXPECT_EQ(after.num_system_allocs, before.num_system_allocs) << "run " << r;
  }
}

TEST(Runtime, KeptOutputsAreNotOverwritten) {
  SmallNet net;
  runtime::Model model(net.export_file(2, false));
  Tensor x1 = rand_tensor({2, 1, 8, 8}, 1), x2 = rand_tensor({2, 1, 8, 8}, 2);
  Tensor y1 = model.run({x1})[0];
  std::vector<double> first = values(y1);
  Tensor y2 = model.run({x2})[0];
  EXPECT_FALSE(y1.shares_storage(y2));
  EXPECT_EQ(values(y1), first);
  EXPECT_TRUE(all_close(values(y2), values(net(x2)), 1e-5, 1e-6));
}

TEST(Runtime, ThreadCountIsPerRunAndRestored) {
  SmallNet net;
  runtime::Model one(net.export_file(2, false), runtime::ModelOptions{1});
  runtime::Model two(net.export_file(2, false), runtime::ModelOptions{2});
  Tensor x = rand_tensor({2, 1, 8, 8}, 4);
  const int before = omp_get_max_threads();
  EXPECT_EQ(values(one.run({x})[0]), values(two.run({x})[0]));
  EXPECT_EQ(omp_get_max_threads(), before);
  EXPECT_THROW(one.set_num_threads(-1), ValueError);
}

TEST(Runtime, ExplainShowsFoldsAndTheExecutedGraph) {
  SmallNet net;
  runtime::Model model(net.export_file(2, true));
  std::string e = model.explain(5);
  for (const char* want : {"format version 1", "fold_batch_norm: 1 batch norms folded",
                           "stored graph", "executed at batch size 5", "arena", "N: dynamic"})
    EXPECT_NE(e.find(want), std::string::npos) << want << "\n" << e;
  EXPECT_EQ(model.input_type(0), "float32[N, 1, 8, 8]");
}

TEST(Runtime, CApiRunsAModelAndReportsErrors) {
  SmallNet net;
  TempFile f("capi.tdm");
  runtime::save_model(f.path, net.export_file(2, true));
  tandem_model* m = tandem_model_load(f.path.c_str(), 1);
  ASSERT_NE(m, nullptr) << tandem_last_error();
  EXPECT_EQ(tandem_model_num_inputs(m), 1);
  EXPECT_EQ(tandem_model_num_outputs(m), 1);
  EXPECT_STREQ(tandem_model_input_type(m, 0), "float32[N, 1, 8, 8]");
  Tensor x = rand_tensor({3, 1, 8, 8}, 5);
  const int64_t shape[4] = {3, 1, 8, 8};
  tandem_tensor in{x.data_ptr(), TANDEM_FLOAT32, 4, shape};
  ASSERT_EQ(tandem_model_run(m, &in, 1), 0) << tandem_last_error();
  tandem_tensor out;
  ASSERT_EQ(tandem_model_output(m, 0, &out), 0);
  ASSERT_EQ(out.ndim, 2);
  EXPECT_EQ(out.shape[0], 3);
  EXPECT_EQ(out.shape[1], 3);
  std::vector<double> got(static_cast<float*>(out.data), static_cast<float*>(out.data) + 9);
  EXPECT_TRUE(all_close(got, values(net(x)), 1e-5, 1e-6));
  // Errors: wrong input count and shape, bad index, a bad file.
  EXPECT_EQ(tandem_model_run(m, &in, 0), -1);
  EXPECT_NE(std::string(tandem_last_error()).find("takes 1 inputs"), std::string::npos);
  const int64_t bad[4] = {3, 2, 8, 8};
  tandem_tensor wrong{x.data_ptr(), TANDEM_FLOAT32, 4, bad};
  EXPECT_EQ(tandem_model_run(m, &wrong, 1), -1);
  EXPECT_EQ(tandem_model_output(m, 5, &out), -1);
  EXPECT_EQ(tandem_model_input_name(m, -1), nullptr);
  tandem_model_free(m);
  EXPECT_EQ(tandem_model_load("/nonexistent/model.tdm", 0), nullptr);
  EXPECT_NE(std::string(tandem_last_error()).find("cannot open"), std::string::npos);
  EXPECT_EQ(tandem_model_run(nullptr, &in, 1), -1);
}

TEST(Runtime, NpyRoundTripAndErrors) {
  TempFile f("x.npy");
  Tensor t = rand_tensor({2, 3, 5}, 6);
  runtime::save_npy(f.path, t);
  Tensor back = runtime::load_npy(f.path);
  EXPECT_EQ(back.shape(), t.shape());
  EXPECT_EQ(values(back), values(t));
  std::ifstream in(f.path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ((bytes.size() - 2 * 3 * 5 * 4) % 64, 0u);  // data starts aligned
  for (size_t n = 0; n + 1 < bytes.size(); n += 7)
    EXPECT_THROW(runtime::parse_npy(std::string_view(bytes.data(), n), "cut"), ValueError);
  std::string fortran = bytes;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_THROW(runtime::parse_npy(fortran, "f"), ValueError);
  Tensor scalar = runtime::parse_npy(
      [] {
        std::string h = "{'descr': '<i8', 'fortran_order': False, 'shape': (), }";
        h.append(63 - (10 + h.size()) % 64, ' ');
        h += '\n';
        std::string b =
            std::string("\x93NUMPY\x01\x00", 8) + char(h.size() & 255) + char(h.size() >> 8) + h;
        int64_t v = 42;
        return b + std::string(reinterpret_cast<char*>(&v), 8);
      }(),
      "scalar");
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.item_double(), 42.0);
}

}  // namespace
}  // namespace tandem::testing
