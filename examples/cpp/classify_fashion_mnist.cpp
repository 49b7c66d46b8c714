// Classifies Fashion-MNIST test images with a model exported from Python, using only the C++
// runtime (libtandem_runtime: no Python, no autograd, no tracer):
//
//   .venv/bin/python examples/python/demo.py --modern --only graph --export lenet.tdm
//   build/classify_fashion_mnist lenet.tdm [--limit N] [--batch B] [--threads T]
//                                [--check lenet.tdm.check.npy] [--min-accuracy A]
//
// Reads the test set from /usr/share/datasets/fashion-mnist (Debian's dataset-fashion-mnist;
// --data DIR elsewhere), scales pixels to [0, 1] as transforms.ToTensor does, runs the model in
// batches and prints the accuracy. --check compares the predictions with the ones Python
// made before export. Exits 77 (skipped) when the data set is not installed.
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tandem/runtime/model.h"
#include "tandem/runtime/npy.h"
#include "tandem/runtime/openmp_env.h"

namespace {

// The bytes of a gzip-compressed IDX file, or empty when it cannot be read.
std::vector<unsigned char> read_gz(const std::string& path) {
  std::vector<unsigned char> out;
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return out;
  unsigned char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.insert(out.end(), buf, buf + n);
  gzclose(f);
  return out;
}

uint32_t be32(const unsigned char* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

struct Flags {
  std::string model, data = "/usr/share/datasets/fashion-mnist", check;
  int64_t limit = 10000, batch = 256;
  int threads = 0;
  double min_accuracy = 0;
};

Flags parse(int argc, char** argv) {
  Flags f;
  if (argc < 2) throw std::runtime_error("usage: classify_fashion_mnist MODEL.tdm [options]");
  f.model = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--data")
      f.data = v;
    else if (a == "--limit")
      f.limit = std::stoll(v);
    else if (a == "--batch")
      f.batch = std::stoll(v);
    else if (a == "--threads")
      f.threads = std::stoi(v);
    else if (a == "--check")
      f.check = v;
    else if (a == "--min-accuracy")
      f.min_accuracy = std::stod(v);
    else
      throw std::runtime_error("unknown option " + a);
  }
  return f;
}

int run(const Flags& f) {
  std::vector<unsigned char> images = read_gz(f.data + "/t10k-images-idx3-ubyte.gz");
  std::vector<unsigned char> labels = read_gz(f.data + "/t10k-labels-idx1-ubyte.gz");
  if (images.size() < 16 || labels.size() < 8) {
    std::printf("Fashion-MNIST not found in %s (apt-get install dataset-fashion-mnist)\n",
                f.data.c_str());
    return 77;
  }
  const int64_t count = be32(&images[4]), rows = be32(&images[8]), cols = be32(&images[12]);
  if (be32(&images[0]) != 2051 || be32(&labels[0]) != 2049 ||
      images.size() != size_t(16 + count * rows * cols) || labels.size() != size_t(8 + count))
    throw std::runtime_error("malformed IDX files in " + f.data);
  const int64_t n = std::min(count, f.limit);

  tandem::runtime::Model model(f.model, tandem::runtime::ModelOptions{f.threads});
  std::printf("model %s: input %s, %s\n", f.model.c_str(), model.input_type(0).c_str(),
              model.dynamic_batch() ? "dynamic batch" : "fixed batch");
  const int64_t batch = model.dynamic_batch() ? f.batch : model.export_batch();
  std::vector<int64_t> predicted;
  double seconds = 0;
  for (int64_t start = 0; start + (model.dynamic_batch() ? 0 : batch - 1) < n; start += batch) {
    const int64_t b = std::min(batch, n - start);
    tandem::Tensor x = tandem::Tensor::empty({b, 1, rows, cols}, tandem::DType::Float32);
    float* px = x.data<float>();
    const unsigned char* src = &images[size_t(16 + start * rows * cols)];
    for (int64_t i = 0; i < b * rows * cols; ++i) px[i] = float(src[i]) / 255.0f;
    auto t0 = std::chrono::steady_clock::now();
    tandem::Tensor logits = model.run({x})[0];
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int64_t classes = logits.shape()[1];
    const float* pl = logits.contiguous().data<float>();
    for (int64_t i = 0; i < b; ++i) {
      int64_t best = 0;
      for (int64_t c = 1; c < classes; ++c)
        if (pl[i * classes + c] > pl[i * classes + best]) best = c;
      predicted.push_back(best);
    }
  }
  int64_t correct = 0;
  for (size_t i = 0; i < predicted.size(); ++i) correct += predicted[i] == labels[8 + i];
  const double acc = double(correct) / double(predicted.size());
  std::printf("accuracy %.4f on %zu test images (%.1f images/ms in the runtime)\n", acc,
              predicted.size(), double(predicted.size()) / (seconds * 1e3));
  int status = 0;
  if (!f.check.empty()) {
    tandem::Tensor want = tandem::runtime::load_npy(f.check);
    const int64_t m = std::min<int64_t>(want.numel(), int64_t(predicted.size()));
    int64_t same = 0;
    for (int64_t i = 0; i < m; ++i) same += want.data<int64_t>()[i] == predicted[size_t(i)];
    std::printf("agrees with Python's predictions on %lld of %lld images\n", (long long)same,
                (long long)m);
    // Folding and fusion reorder float arithmetic: a near-tie may flip, nothing more.
    if (m == 0 || double(same) < 0.995 * double(m)) status = 1;
  }
  if (acc < f.min_accuracy) {
    std::printf("accuracy below --min-accuracy %.3f\n", f.min_accuracy);
    status = 1;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  tandem::runtime::limit_openmp_spinning(argv);
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "classify_fashion_mnist: %s\n", e.what());
    return 1;
  }
}
