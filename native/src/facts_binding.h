// The row facts and JSON scanner calls of the addon (facts_binding.c).
#ifndef BIJOTEL_FACTS_BINDING_H
#define BIJOTEL_FACTS_BINDING_H
#include <node_api.h>

#include "record.h"

/** The calling thread's facts setup, made with its prover on first use (addon.c); NULL with an exception pending. */
facts_setup *facts_here(napi_env env);

napi_value js_scan_keys(napi_env env, napi_callback_info info);
napi_value js_scan_body(napi_env env, napi_callback_info info);
napi_value js_facts_columns(napi_env env, napi_callback_info info);
napi_value js_row_facts(napi_env env, napi_callback_info info);
napi_value js_page_facts(napi_env env, napi_callback_info info);

#endif
