// SHA-256 of a whole file on libuv's thread pool, in file order (file_hash.c).
#ifndef BIJOTEL_FILE_HASH_H
#define BIJOTEL_FILE_HASH_H
#include <node_api.h>

#ifndef _WIN32
napi_value js_file_hash_start(napi_env env, napi_callback_info info);
napi_value js_file_hash_read(napi_env env, napi_callback_info info);
napi_value js_file_hash_digest(napi_env env, napi_callback_info info);
#endif

#endif
