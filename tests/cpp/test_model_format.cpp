// The model file format (runtime/model_format.h): export -> save -> load round trips, the
// inference passes' effect on the stored graph, and loading's validation of broken files.
#include <fstream>
#include <iterator>
#include <random>

#include "deploy_util.h"
#include "tandem/io/safetensors.h"
#include "tandem/runtime/model.h"
#include "tandem/runtime/opset.h"

namespace tandem::testing {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Writes a file with the graph JSON (and metadata) replaced, weights as exported.
void write_variant(const std::string& path, const runtime::ModelFile& m, const std::string& json,
                   io::Metadata overrides = {}, io::NamedTensors tensors = {}) {
  if (tensors.empty())
    for (const auto& c : m.graph.constants) tensors.emplace_back(c.name, c.tensor);
  io::Metadata md{{"format", "tandem.model"},
                  {"format_version", "1"},
                  {"opset_version", "1"},
                  {"producer", "test"},
                  {"graph", json}};
  for (auto& [k, v] : overrides) md[k] = v;
  io::save_safetensors(path, tensors, md);
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in the graph JSON";
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

// Expects loading `path` to throw a ValueError whose message contains `want`.
void expect_rejects(const std::string& path, const std::string& want) {
  try {
    runtime::load_model(path);
    ADD_FAILURE() << "loaded a broken file; expected an error containing '" << want << "'";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
}

TEST(ModelFormat, RoundTripMatchesEagerAndFoldsBatchNorm) {
  SmallNet net;
  runtime::ModelFile m = net.export_file(2, false);
  for (const auto& n : m.graph.nodes) EXPECT_NE(n.op->name, "batch_norm");
  EXPECT_NE(m.export_log.find("batch_norm %"), std::string::npos) << m.export_log;
  TempFile f("roundtrip.tdm");
  runtime::save_model(f.path, m);
  // A safetensors file whose metadata names the format, its weights readable as such.
  auto [tensors, md] = io::load_safetensors(f.path);
  EXPECT_EQ(md.at("format"), "tandem.model");
  EXPECT_EQ(md.at("format_version"), "1");
  EXPECT_EQ(md.at("opset_version"), "1");
  EXPECT_EQ(tensors.size(), m.graph.constants.size());

  runtime::Model model(f.path);
  Tensor x = rand_tensor({2, 1, 8, 8}, 11);
  EXPECT_TRUE(all_close(values(model.run({x})[0]), values(net(x)), 1e-5, 1e-6));
  // The same from the bytes in memory.
  runtime::ModelFile again = runtime::parse_model(read_file(f.path), "bytes");
  EXPECT_EQ(runtime::graph_to_json(again.graph), runtime::graph_to_json(m.graph));
}

TEST(ModelFormat, DynamicBatchRunsAnyBatchSize) {
  SmallNet net;
  runtime::ModelFile m = net.export_file(2, true);
  EXPECT_TRUE(m.graph.dynamic());
  EXPECT_NE(runtime::graph_to_json(m.graph).find("\"N\""), std::string::npos);
  runtime::Model model(std::move(m));
  for (int64_t b : {1, 3, 7}) {
    Tensor x = rand_tensor({b, 1, 8, 8}, uint32_t(20 + b));
    // The model runs the convolution with batch norm folded into its weights, the net runs
    // them apart: float32 rounding differs by a few ulp of the conv's sums (1.5e-6 with
    // oneDNN's AVX2 kernels on a 0.04 output), not by a wrong formula.
    EXPECT_TRUE(all_close(values(model.run({x})[0]), values(net(x)), 1e-5, 1e-5)) << "batch " << b;
  }
}

TEST(ModelFormat, FixedBatchModelRefusesOtherShapes) {
  SmallNet net;
  runtime::Model model(net.export_file(2, false));
  try {
    model.run({rand_tensor({3, 1, 8, 8}, 1)});
    FAIL() << "ran with a wrong shape";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("float32[2, 1, 8, 8]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(model.run({}), ValueError);
}

TEST(ModelFormat, RejectsBrokenGraphs) {
  SmallNet net;
  runtime::ModelFile m = net.export_file(2, false);
  const std::string json = runtime::graph_to_json(m.graph);
  TempFile f("broken.tdm");
  auto check = [&](const std::string& variant, const std::string& want) {
    write_variant(f.path, m, variant);
    expect_rejects(f.path, want);
  };
  check(replace_once(json, "\"op\":\"conv2d\"", "\"op\":\"conv9d\""), "not in op-set");
  check(replace_once(json, "\"groups\":1", "\"groups\":1.5"), "expected an integer");
  check(replace_once(json, "\"groups\":1", "\"groups\":1,\"colour\":2"), "no attribute");
  check(replace_once(json, "\"stride\":[1,1],", ""), "missing its attribute 'stride'");
  check(replace_once(json, "\"inputs\":[0,", "\"inputs\":[999,"), "out of range");
  check(replace_once(json, "\"inputs\":[0,", "\"inputs\":[-1,"), "out of range");
  check(replace_once(json, "\"inputs\":[0,", "\"inputs\":["), "node 0 (conv2d)");
  check(replace_once(json, "[\"float32\",[2,4,8,8]]", "[\"float32\",[2,4,9,8]]"), "declared");
  check(replace_once(json, "[\"float32\",[2,4,8,8]]", "[\"int64\",[2,4,8,8]]"), "declared");
  check(replace_once(json, "\"batch\":2", "\"batch\":0"), "batch");
  check(replace_once(json, "\"nodes\":[",
                     "\"nodes\":[{\"op\":\"relu\",\"inputs\":[5],\"outputs\":[0]},"),
        "");
  check(replace_once(json, "[\"float32\",[2,1,8,8]]", "[\"float99\",[2,1,8,8]]"), "dtype");
  check(replace_once(json, "{\"batch\"", "{\"extra\":1,\"batch\""), "unknown field");
  check(json.substr(0, json.size() / 2), "malformed JSON");
  check(replace_once(json, "[\"float32\",[2,1,8,8]]", "[\"float32\",[\"2N+\",1,8,8]]"),
        "batch expression");
  check(replace_once(json, "[\"float32\",[2,1,8,8]]", "[\"float32\",[99999999999999,1,8,8]]"),
        "range");
}

TEST(ModelFormat, RejectsBadMetadataAndWeights) {
  SmallNet net;
  runtime::ModelFile m = net.export_file(2, false);
  const std::string json = runtime::graph_to_json(m.graph);
  TempFile f("meta.tdm");
  write_variant(f.path, m, json, {{"format_version", "2"}});
  expect_rejects(f.path, "newer tandem");
  write_variant(f.path, m, json, {{"opset_version", "7"}});
  expect_rejects(f.path, "newer tandem");
  write_variant(f.path, m, json, {{"format", "something"}});
  expect_rejects(f.path, "not a tandem model file");
  write_variant(f.path, m, json, {{"format_version", "one"}});
  expect_rejects(f.path, "not a version number");
  // A weight whose shape disagrees with its declared value type.
  io::NamedTensors tensors;
  for (const auto& c : m.graph.constants)
    tensors.emplace_back(c.name, tensors.empty() ? rand_tensor({4, 1, 3, 2}, 1) : c.tensor);
  write_variant(f.path, m, json, {}, tensors);
  expect_rejects(f.path, "but the graph declares");
  // A tensor the graph does not use, and a missing one.
  tensors.clear();
  for (const auto& c : m.graph.constants) tensors.emplace_back(c.name, c.tensor);
  tensors.emplace_back("stray", rand_tensor({2}, 1));
  write_variant(f.path, m, json, {}, tensors);
  expect_rejects(f.path, "not used by the graph");
  tensors.pop_back();
  tensors.pop_back();
  write_variant(f.path, m, json, {}, tensors);
  expect_rejects(f.path, "which the file lacks");
}

TEST(ModelFormat, TruncatedFilesAreRejected) {
  SmallNet net;
  TempFile f("trunc.tdm");
  runtime::save_model(f.path, net.export_file(2, false));
  const std::string bytes = read_file(f.path);
  // Every cut inside the header and a spread of cuts through the weights.
  for (size_t n = 0; n < bytes.size(); n += n < 4096 ? 1 : 97)
    EXPECT_THROW(runtime::parse_model(std::string_view(bytes.data(), n), "cut"), ValueError) << n;
}

TEST(ModelFormat, RandomCorruptionNeverCrashes) {
  SmallNet net;
  TempFile f("flip.tdm");
  runtime::save_model(f.path, net.export_file(2, false));
  const std::string good = read_file(f.path);
  std::mt19937 gen(7);
  int loaded = 0;
  for (int it = 0; it < 400; ++it) {
    std::string b = good;
    for (int k = 0; k < 1 + it % 4; ++k) {  // flips in the header (JSON) mostly
      size_t at = it % 3 ? size_t(gen() % std::min<size_t>(b.size(), 6000)) : gen() % b.size();
      b[at] = char(b[at] ^ (1 << (gen() % 8)));
    }
    try {
      runtime::ModelFile m = runtime::parse_model(b, "flipped");
      runtime::Model model(std::move(m));
      Tensor x = Tensor::empty(model.input_shape(0, model.export_batch()), model.input_dtype(0));
      std::memset(x.data_ptr(), 0, size_t(x.numel()) * x.itemsize());
      model.run({x});
      ++loaded;
    } catch (const Error&) {
    }
  }
  EXPECT_GT(loaded, 0);  // flips in weight bytes still load
}

TEST(ModelFormat, OpsetCoversTheExportedOpsAndChecksArity) {
  for (const char* op : {"conv2d", "batch_norm", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d",
                         "matmul", "add", "relu", "sigmoid", "reshape", "cat", "softmax"})
    EXPECT_NE(runtime::find_op_spec(op), nullptr) << op;
  EXPECT_EQ(runtime::find_op_spec("bernoulli"), nullptr);  // random ops are not exportable
  const runtime::OpSpec* relu = runtime::find_op_spec("relu");
  EXPECT_THROW(runtime::check_node(*relu, {}, 2, 1, "t: "), ValueError);
  const runtime::OpSpec* bn = runtime::find_op_spec("batch_norm");
  Attrs a{{"training", false}, {"eps", 1e-5}, {"has_weight", true}, {"has_bias", true}};
  EXPECT_NO_THROW(runtime::check_node(*bn, a, 5, 3, "t: "));
  EXPECT_THROW(runtime::check_node(*bn, a, 3, 3, "t: "), ValueError);
}

TEST(ModelFormat, ExportRefusesStatefulFunctions) {
  Tensor state = rand_tensor({3}, 1);
  auto updates = [&](const std::vector<Tensor>& xs) {
    copy_(state, add(state, xs[0]));  // an in-place update of captured state
    return std::vector<Tensor>{mul(xs[0], state)};
  };
  try {
    deploy::export_model(updates, {rand_tensor({3}, 2)});
    FAIL() << "exported a function that updates state";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("in place"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tandem::testing
