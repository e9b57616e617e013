// Node-API argument helpers shared by the addon's source files.
#ifndef BIJOTEL_NAPI_ARGS_H
#define BIJOTEL_NAPI_ARGS_H
#include <node_api.h>
#include <stdint.h>

/** A typed array argument of `want` type: its data and element count, or a thrown TypeError. */
static inline int typed_arg(napi_env env, napi_value v, napi_typedarray_type want, void **data, size_t *len,
                     const char *message) {
  napi_typedarray_type type;
  napi_value ab;
  size_t off;
  if (napi_get_typedarray_info(env, v, &type, len, data, &ab, &off) != napi_ok || type != want) {
    napi_throw_type_error(env, NULL, message);
    return 0;
  }
  return 1;
}

static inline int bytes_arg(napi_env env, napi_value v, uint8_t **data, size_t *len) {
  return typed_arg(env, v, napi_uint8_array, (void **)data, len, "expected a Uint8Array");
}

static inline int int32s_arg(napi_env env, napi_value v, int32_t **data, size_t *len) {
  return typed_arg(env, v, napi_int32_array, (void **)data, len, "expected an Int32Array");
}

/** The call's first `n` arguments in `argv` (missing ones undefined), their count in `argc`. */
#define ARGS(n)                                                                                                        \
  size_t argc = (n);                                                                                                   \
  napi_value argv[(n)];                                                                                                \
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL)

#endif
