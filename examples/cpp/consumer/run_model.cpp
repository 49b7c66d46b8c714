// Loads a model file and runs it on zeros of its declared input shapes: the smallest program
// that embeds the tandem runtime (see CMakeLists.txt next to it).
#include <cstdio>
#include <cstring>

#include "tandem/runtime/model.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: run_model MODEL.tdm\n");
    return 2;
  }
  try {
    tandem::runtime::Model m(argv[1]);
    std::vector<tandem::Tensor> xs;
    for (size_t i = 0; i < m.num_inputs(); ++i) {
      tandem::Tensor x =
          tandem::Tensor::empty(m.input_shape(i, m.export_batch()), m.input_dtype(i));
      std::memset(x.data_ptr(), 0, size_t(x.numel()) * x.itemsize());
      xs.push_back(x);
    }
    auto y = m.run(xs);
    std::printf("run_model: %zu outputs, first %s\n", y.size(),
                tandem::shape_str(y[0].shape()).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "run_model: %s\n", e.what());
    return 1;
  }
}
