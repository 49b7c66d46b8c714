#include "tandem/runtime/c_api.h"

#include <exception>
#include <string>

#include "tandem/core/error.h"
#include "tandem/runtime/model.h"

struct tandem_model {
  explicit tandem_model(const std::string& path, int threads)
      : model(path, tandem::runtime::ModelOptions{threads > 0 ? threads : 0}) {
    for (size_t i = 0; i < model.num_inputs(); ++i) types.push_back(model.input_type(i));
  }
  tandem::runtime::Model model;
  std::vector<std::string> types;
  std::vector<tandem::Tensor> outputs;
};

namespace {

thread_local std::string last_error;

template <typename F>
int guarded(F f) {
  try {
    last_error.clear();
    f();
    return 0;
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown error";
  }
  return -1;
}

int fail(const std::string& message) {
  last_error = message;
  return -1;
}

bool valid_index(const tandem_model* m, int i, size_t n, const char* what) {
  if (!m) return fail(std::string(what) + ": model is NULL"), false;
  if (i < 0 || size_t(i) >= n)
    return fail(std::string(what) + ": index " + std::to_string(i) + " out of range [0, " +
                std::to_string(n) + ")"),
           false;
  return true;
}

}  // namespace

extern "C" {

const char* tandem_last_error(void) {
  return last_error.c_str();
}

tandem_model* tandem_model_load(const char* path, int num_threads) {
  tandem_model* m = nullptr;
  if (!path) return fail("tandem_model_load: path is NULL"), nullptr;
  guarded([&] { m = new tandem_model(path, num_threads); });
  return m;
}

void tandem_model_free(tandem_model* model) {
  delete model;
}

int tandem_model_num_inputs(const tandem_model* model) {
  return model ? int(model->model.num_inputs()) : fail("tandem_model_num_inputs: model is NULL");
}

int tandem_model_num_outputs(const tandem_model* model) {
  return model ? int(model->model.num_outputs()) : fail("tandem_model_num_outputs: model is NULL");
}

const char* tandem_model_input_name(const tandem_model* model, int i) {
  if (!valid_index(model, i, model ? model->model.num_inputs() : 0, "tandem_model_input_name"))
    return nullptr;
  return model->model.input_name(size_t(i)).c_str();
}

const char* tandem_model_input_type(const tandem_model* model, int i) {
  if (!valid_index(model, i, model ? model->types.size() : 0, "tandem_model_input_type"))
    return nullptr;
  return model->types[size_t(i)].c_str();
}

int tandem_model_run(tandem_model* model, const tandem_tensor* inputs, int num_inputs) {
  if (!model) return fail("tandem_model_run: model is NULL");
  if (num_inputs < 0 || (num_inputs > 0 && !inputs))
    return fail("tandem_model_run: inputs is NULL");
  return guarded([&] {
    std::vector<tandem::Tensor> xs;
    for (int i = 0; i < num_inputs; ++i) {
      const tandem_tensor& t = inputs[i];
      TANDEM_CHECK(t.dtype >= 0 && t.dtype < tandem::kNumDTypes, tandem::ValueError,
                   "tandem_model_run: input ", i, " has an unknown dtype code ", t.dtype);
      TANDEM_CHECK(t.ndim >= 0 && t.ndim <= 16 && (t.ndim == 0 || t.shape), tandem::ValueError,
                   "tandem_model_run: input ", i, " has a bad ndim or a NULL shape");
      tandem::Shape shape(t.shape, t.shape + t.ndim);
      for (int64_t d : shape)
        TANDEM_CHECK(d >= 0, tandem::ValueError, "tandem_model_run: input ", i,
                     " has a negative dimension");
      auto dt = tandem::DType(t.dtype);
      size_t nbytes = size_t(tandem::numel_of(shape)) * tandem::itemsize(dt);
      TANDEM_CHECK(t.data || nbytes == 0, tandem::ValueError, "tandem_model_run: input ", i,
                   " has NULL data");
      auto impl = std::make_shared<tandem::TensorImpl>();
      impl->shape = shape;
      impl->strides = tandem::contiguous_strides(shape);
      impl->dtype = dt;
      impl->storage = tandem::Storage::borrow(t.data, nbytes, nullptr);
      xs.emplace_back(std::move(impl));
    }
    model->outputs.clear();  // lets the run write into last run's output buffers
    model->outputs = model->model.run(xs);
  });
}

int tandem_model_output(tandem_model* model, int i, tandem_tensor* out) {
  if (!valid_index(model, i, model ? model->outputs.size() : 0, "tandem_model_output")) return -1;
  if (!out) return fail("tandem_model_output: out is NULL");
  const tandem::Tensor& t = model->outputs[size_t(i)];
  if (!t.is_contiguous()) model->outputs[size_t(i)] = t.contiguous();
  const tandem::Tensor& c = model->outputs[size_t(i)];
  out->data = c.data_ptr();
  out->dtype = int32_t(c.dtype());
  out->ndim = int32_t(c.dim());
  out->shape = c.shape().data();
  return 0;
}

}  // extern "C"
