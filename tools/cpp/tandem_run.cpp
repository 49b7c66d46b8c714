// tandem-run: runs a model file (.tdm) from the command line, with no Python.
//
//   tandem-run model.tdm --input x.npy [--input x2.npy] [--output y.npy] [--bench N]
//              [--threads T] [--batch B] [--explain]
//
// Inputs are .npy files in the model's input order; without --input, zero inputs of the
// declared shapes (at --batch B for a dynamic-batch model) are used, which is enough for
// --bench. Each output is written to the next --output path, else summarized on stdout.
// --bench N runs N more times and prints min / median / mean latency in milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/runtime/model.h"
#include "tandem/runtime/npy.h"
#include "tandem/runtime/openmp_env.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: tandem-run MODEL.tdm [--input X.npy]... [--output Y.npy]... [--bench N]\n"
               "                  [--threads T] [--batch B] [--explain]\n");
  return 2;
}

std::string summary(const tandem::Tensor& t) {
  std::string s = std::string(tandem::dtype_short_name(t.dtype())) + tandem::shape_str(t.shape());
  if (t.dtype() == tandem::DType::Float32 && t.dim() == 2 && t.numel() > 0) {
    tandem::Tensor c = t.contiguous();
    const float* p = c.data<float>();
    s += " argmax per row:";
    for (int64_t r = 0; r < std::min<int64_t>(t.shape()[0], 16); ++r) {
      const float* row = p + r * t.shape()[1];
      s += " " + std::to_string(std::max_element(row, row + t.shape()[1]) - row);
    }
    if (t.shape()[0] > 16) s += " ...";
  }
  return s;
}

int run(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0) return usage();
  std::string path = argv[1];
  std::vector<std::string> ins, outs;
  int bench = 0, threads = 0;
  int64_t batch = 0;
  bool explain = false;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw tandem::ValueError("tandem-run: " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--input")
      ins.push_back(value());
    else if (a == "--output")
      outs.push_back(value());
    else if (a == "--bench")
      bench = std::stoi(value());
    else if (a == "--threads")
      threads = std::stoi(value());
    else if (a == "--batch")
      batch = std::stoll(value());
    else if (a == "--explain")
      explain = true;
    else
      return usage();
  }
  tandem::runtime::Model m(path, tandem::runtime::ModelOptions{threads});
  if (explain) std::printf("%s\n", m.explain(batch).c_str());
  std::vector<tandem::Tensor> xs;
  if (ins.empty()) {
    int64_t n = batch > 0 ? batch : m.export_batch();
    for (size_t i = 0; i < m.num_inputs(); ++i) {
      tandem::Tensor z = tandem::Tensor::empty(m.input_shape(i, n), m.input_dtype(i));
      std::memset(z.data_ptr(), 0, size_t(z.numel()) * z.itemsize());
      xs.push_back(z);
    }
  } else {
    for (const std::string& f : ins) xs.push_back(tandem::runtime::load_npy(f));
  }
  std::vector<tandem::Tensor> ys = m.run(xs);
  for (size_t k = 0; k < ys.size(); ++k) {
    if (k < outs.size())
      tandem::runtime::save_npy(outs[k], ys[k]);
    else
      std::printf("%s: %s\n", m.output_name(k).c_str(), summary(ys[k]).c_str());
  }
  if (bench > 0) {
    ys.clear();
    std::vector<double> ms;
    for (int r = 0; r < bench; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      m.run(xs);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::vector<double> s = ms;
    std::sort(s.begin(), s.end());
    double mean = 0;
    for (double x : ms) mean += x / double(ms.size());
    std::printf("bench: %d runs, min %.4f ms, median %.4f ms, mean %.4f ms\n", bench, s.front(),
                s[s.size() / 2], mean);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  tandem::runtime::limit_openmp_spinning(argv);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tandem-run: %s\n", e.what());
    return 1;
  }
}
