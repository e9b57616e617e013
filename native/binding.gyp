{
  "targets": [
    {
      "target_name": "bijotel_native",
      "sources": ["src/addon.c", "src/facts_binding.c", "src/pages.c", "src/record.c", "src/crypto.c", "src/span_tail.c", "src/json_scan.c", "src/file_hash.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-O3", "-std=c11", "-Wall", "-Wextra"],
      "xcode_settings": { "OTHER_CFLAGS": ["-O3", "-std=c11"] },
      "conditions": [["OS=='linux'", { "libraries": ["-ldl", "-lpthread"] }]]
    }
  ]
}
