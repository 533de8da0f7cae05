/* run_model: loads a compiled model library with the C API, fills its inputs, runs it and
 * prints each output's shape and first values. Needs only the tessel runtime library.
 *
 * Usage: run_model model.so [input0.raw input1.raw ...]
 *   input i is read from the i-th raw file (exactly its size in bytes, little-endian,
 *   C order) when given, and otherwise filled with a pattern: (k % 7 - 3) / 2 for floats,
 *   k % 7 for integers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tessel_runtime.h"

enum { kShown = 8 };

struct info {
  const char* name;
  int32_t code, bits, ndim;
  const int64_t* shape;
  int64_t nbytes;
};

static void print_type(const struct info* t) {
  static const char* kinds[] = {"int", "uint", "float", "bfloat"};
  if (t->code == 1 && t->bits == 1)
    printf("bool [");
  else
    printf("%s%d [", t->code >= 0 && t->code <= 3 ? kinds[t->code] : "?", (int)t->bits);
  for (int32_t d = 0; d < t->ndim; ++d) printf("%s%lld", d ? ", " : "", (long long)t->shape[d]);
  printf("]");
}

/* Element k of data as a double; returns 0 for a type it does not show. */
static int element(const struct info* t, const void* data, int64_t k, double* value) {
  const char* p = (const char*)data;
  if (t->code == 2 && t->bits == 32)
    *value = ((const float*)p)[k];
  else if (t->code == 2 && t->bits == 64)
    *value = ((const double*)p)[k];
  else if (t->code == 0 && t->bits == 8)
    *value = ((const int8_t*)p)[k];
  else if (t->code == 0 && t->bits == 32)
    *value = ((const int32_t*)p)[k];
  else if (t->code == 0 && t->bits == 64)
    *value = (double)((const int64_t*)p)[k];
  else if (t->code == 1 && t->bits <= 8)
    *value = ((const uint8_t*)p)[k];
  else
    return 0;
  return 1;
}

static void fill_pattern(const struct info* t, void* data) {
  int64_t n = t->bits == 1 ? t->nbytes : t->nbytes / (t->bits / 8);
  for (int64_t k = 0; k < n; ++k) {
    double v = t->code == 2 ? (double)(k % 7 - 3) / 2 : (double)(k % 7);
    if (t->code == 2 && t->bits == 32)
      ((float*)data)[k] = (float)v;
    else if (t->code == 2 && t->bits == 64)
      ((double*)data)[k] = v;
    else if (t->code == 0 && t->bits == 32)
      ((int32_t*)data)[k] = (int32_t)v;
    else if (t->code == 0 && t->bits == 64)
      ((int64_t*)data)[k] = (int64_t)v;
    else if (t->bits == 8)
      ((uint8_t*)data)[k] = (uint8_t)v;
    else if (t->bits == 1)
      ((uint8_t*)data)[k] = (uint8_t)(k % 2);
    /* other types stay zero */
  }
}

/* Reads exactly t->nbytes bytes from path into data; prints why not and returns 0. */
static int read_raw(const char* path, const struct info* t, void* data) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "run_model: cannot open '%s'\n", path);
    return 0;
  }
  size_t n = fread(data, 1, (size_t)t->nbytes, f);
  int extra = fgetc(f) != EOF;
  fclose(f);
  if ((int64_t)n != t->nbytes || extra) {
    fprintf(stderr, "run_model: input %s: '%s' has %s%zu bytes, expected %lld\n", t->name, path,
            extra ? "more than " : "", n, (long long)t->nbytes);
    return 0;
  }
  return 1;
}

/* Sets every input; returns 0 on failure (after printing why). */
static int set_inputs(tessel_model* model, int argc, char** argv) {
  int32_t num_inputs = tessel_model_num_inputs(model);
  if (argc - 2 > num_inputs) {
    fprintf(stderr, "run_model: %d input files given, the model takes %d\n", argc - 2,
            (int)num_inputs);
    return 0;
  }
  for (int32_t i = 0; i < num_inputs; ++i) {
    struct info t;
    tessel_model_input_info(model, i, &t.name, &t.code, &t.bits, &t.ndim, &t.shape, &t.nbytes);
    void* data = calloc(1, t.nbytes > 0 ? (size_t)t.nbytes : 1);
    if (!data) return 0;
    int ok = 1;
    if (i + 2 < argc)
      ok = read_raw(argv[i + 2], &t, data);
    else
      fill_pattern(&t, data);
    if (ok && tessel_model_set_input(model, i, data, t.nbytes) != TESSEL_OK) {
      fprintf(stderr, "run_model: %s\n", tessel_last_error());
      ok = 0;
    }
    free(data);
    if (!ok) return 0;
    printf("input %s: ", t.name);
    print_type(&t);
    printf(" from %s\n", i + 2 < argc ? argv[i + 2] : "a pattern");
  }
  return 1;
}

static int print_outputs(tessel_model* model) {
  for (int32_t i = 0; i < tessel_model_num_outputs(model); ++i) {
    struct info t;
    tessel_model_output_info(model, i, &t.name, &t.code, &t.bits, &t.ndim, &t.shape, &t.nbytes);
    void* data = malloc(t.nbytes > 0 ? (size_t)t.nbytes : 1);
    if (!data || tessel_model_get_output(model, i, data, t.nbytes) != TESSEL_OK) {
      fprintf(stderr, "run_model: output %s: %s\n", t.name,
              data ? tessel_last_error() : "no memory");
      free(data);
      return 0;
    }
    printf("output %s: ", t.name);
    print_type(&t);
    printf(":");
    int64_t n = t.bits == 1 ? t.nbytes : t.nbytes / (t.bits / 8);
    double v;
    for (int64_t k = 0; k < n && k < kShown && element(&t, data, k, &v); ++k) printf(" %g", v);
    printf("\n");
    free(data);
  }
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: run_model model.so [input0.raw ...]\n");
    return 2;
  }
  tessel_model* model = NULL;
  if (tessel_model_load(argv[1], &model) != TESSEL_OK) {
    fprintf(stderr, "run_model: %s\n", tessel_last_error());
    return 1;
  }
  printf("%s: %d inputs, %d outputs\n", argv[1], (int)tessel_model_num_inputs(model),
         (int)tessel_model_num_outputs(model));
  int ok = set_inputs(model, argc, argv);
  if (ok && tessel_model_run(model) != TESSEL_OK) {
    fprintf(stderr, "run_model: %s\n", tessel_last_error());
    ok = 0;
  }
  ok = ok && print_outputs(model);
  tessel_model_free(model);
  return ok ? 0 : 1;
}
