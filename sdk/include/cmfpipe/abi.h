#ifndef CMFPIPE_ABI_H
#define CMFPIPE_ABI_H
/* The only thing a plugin exports: a plain C descriptor. The host reads abi_version
 * before it touches any C++ type of the plugin; a mismatch is refused.
 * Bump CMFPIPE_ABI_VERSION whenever a type that crosses the boundary changes layout
 * (the interfaces in renderer.hpp, parser.hpp, adapter.hpp, processor.hpp, host_services.hpp,
 * stream_guard.hpp, the Registrar of plugin.hpp, the CMF model, and the sdk's classes a plugin
 * derives from whose members the sdk library compiles, such as wire::GuardedStreamBase). */
#include <stdint.h>

/* 6: wire::GuardedStreamBase is an UpstreamBreak too and keeps broken()'s message (its layout);
 * 5: Processor::final_length (the incremental interface of streamed answers), StreamGuardOptions
 *    (stop, final_length) in Adapter::guard_stream;
 * 4: Registrar::host() (HostServices: plugins obtain other kinds from the host);
 * 3: Adapter::guard_stream; 2: from_wire_each, provider bodies */
#define CMFPIPE_ABI_VERSION 6u

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque on the C side; it is a cmfpipe::Registrar once the ABI version matched. */
struct cmfpipe_registrar;

typedef struct cmfpipe_plugin_descriptor {
    uint32_t abi_version;
    const char* name;     /* plugin name, e.g. "jinja2" */
    const char* version;  /* the plugin's own version */
    const char* build_id; /* what built it (commit, compiler); informational */
    void (*register_factories)(struct cmfpipe_registrar* registrar);
} cmfpipe_plugin_descriptor;

/* The exported alias name every plugin shared object carries. */
#define CMFPIPE_PLUGIN_ENTRY "cmfpipe_plugin"

#ifdef __cplusplus
}
#endif
#endif
