// Walks over a chain's pages done in one call each (POSIX: pread on the caller's read-only
// descriptors): listing a table's leaves, a quick pass's timestamps, and the integrity window.
#ifndef BIJOTEL_PAGES_H
#define BIJOTEL_PAGES_H
#include <node_api.h>

#include "record.h"

/** The calling thread's facts setup (addon.c), or NULL with an exception pending. */
const facts_setup *facts_of(napi_env env);

#ifndef _WIN32
napi_value js_collect_leaves(napi_env env, napi_callback_info info);
napi_value js_leaf_times(napi_env env, napi_callback_info info);
napi_value js_window_facts(napi_env env, napi_callback_info info);
#endif

#endif
