/* Runs a model file through the C API (libtandem_runtime's c_api.h) on an input of zeros and
 * prints the first output's shape and its first values: embedding a tandem model from C.
 *
 *   build/example_c_api lenet.tdm 4        (batch size 4 for a dynamic-batch model)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tandem/runtime/c_api.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.tdm [BATCH]\n", argv[0]);
    return 2;
  }
  tandem_model* m = tandem_model_load(argv[1], 1);
  if (!m) {
    fprintf(stderr, "load failed: %s\n", tandem_last_error());
    return 1;
  }
  /* The declared type, e.g. "float32[N, 1, 28, 28]": read its dims ("N" is the batch). */
  const char* type = tandem_model_input_type(m, 0);
  printf("input 0 '%s': %s\n", tandem_model_input_name(m, 0), type);
  if (strncmp(type, "float32[", 8) != 0) {
    fprintf(stderr, "this example feeds float32 inputs only\n");
    tandem_model_free(m);
    return 1;
  }
  int64_t shape[16];
  int ndim = 0;
  int64_t count = 1;
  for (const char* p = type + 8; *p && *p != ']' && ndim < 16; ++ndim) {
    shape[ndim] = *p == 'N' ? (argc > 2 ? atoll(argv[2]) : 1) : strtoll(p, NULL, 10);
    count *= shape[ndim];
    while (*p && *p != ',' && *p != ']') ++p;
    while (*p == ',' || *p == ' ') ++p;
  }
  float* data = calloc((size_t)count, sizeof(float));
  tandem_tensor x = {data, TANDEM_FLOAT32, ndim, shape};
  tandem_tensor y;
  int status = 0;
  if (tandem_model_run(m, &x, 1) != 0 || tandem_model_output(m, 0, &y) != 0) {
    fprintf(stderr, "run failed: %s\n", tandem_last_error());
    status = 1;
  } else {
    printf("output 0: %d dims, shape[0] = %lld, first value %g\n", (int)y.ndim,
           (long long)y.shape[0], y.dtype == TANDEM_FLOAT32 ? ((const float*)y.data)[0] : 0.0);
  }
  free(data);
  tandem_model_free(m);
  return status;
}
