/* The C API of libtandem_runtime, for embedding a model in programs written in C or any
 * language with a C FFI. Functions return 0 (or a non-null handle) on success and -1 (or
 * NULL) on failure; tandem_last_error() then describes the failure on this thread.
 *
 *   tandem_model* m = tandem_model_load("lenet.tdm", 1);
 *   int64_t shape[4] = {1, 1, 28, 28};
 *   tandem_tensor x = {pixels, TANDEM_FLOAT32, 4, shape};
 *   tandem_tensor y;
 *   if (!m || tandem_model_run(m, &x, 1) || tandem_model_output(m, 0, &y))
 *     fprintf(stderr, "%s\n", tandem_last_error());
 *   ... y.data holds y.shape[0] * y.shape[1] floats until the next run ...
 *   tandem_model_free(m);
 */
#ifndef TANDEM_RUNTIME_C_API_H
#define TANDEM_RUNTIME_C_API_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TANDEM_BOOL = 0,
  TANDEM_UINT8 = 1,
  TANDEM_INT8 = 2,
  TANDEM_INT16 = 3,
  TANDEM_INT32 = 4,
  TANDEM_INT64 = 5,
  TANDEM_FLOAT16 = 6,
  TANDEM_BFLOAT16 = 7,
  TANDEM_FLOAT32 = 8,
  TANDEM_FLOAT64 = 9
} tandem_dtype;

/* A dense, C-ordered array that the caller owns (inputs) or the model owns (outputs). */
typedef struct {
  void* data;
  int32_t dtype; /* a tandem_dtype */
  int32_t ndim;
  const int64_t* shape;
} tandem_tensor;

typedef struct tandem_model tandem_model;

/* The message of the last failed call on this thread ("" if none). */
const char* tandem_last_error(void);

/* Loads and validates a model file; num_threads <= 0 keeps the process default. */
tandem_model* tandem_model_load(const char* path, int num_threads);
void tandem_model_free(tandem_model* model);

int tandem_model_num_inputs(const tandem_model* model);
int tandem_model_num_outputs(const tandem_model* model);
/* Name and declared type ("float32[N, 1, 28, 28]") of input i; valid while the model lives. */
const char* tandem_model_input_name(const tandem_model* model, int i);
const char* tandem_model_input_type(const tandem_model* model, int i);

/* Runs the model on num_inputs inputs (read in place, not copied). Invalidates the outputs
 * of the previous run. */
int tandem_model_run(tandem_model* model, const tandem_tensor* inputs, int num_inputs);
/* Output i of the last run: data and shape stay valid until the next run or free. */
int tandem_model_output(tandem_model* model, int i, tandem_tensor* out);

#ifdef __cplusplus
}
#endif
#endif
