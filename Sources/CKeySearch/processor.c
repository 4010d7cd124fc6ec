// Which instructions the key search may use, and the wipe of its secrets.
#include "internal.h"
#include "key_search.h"

#if CS_X86
#include <cpuid.h>
#endif

static int forcePortable;

static int hardwarePresent(void) {
#if CS_X86
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    int sse41 = (ecx >> 19) & 1, aes = (ecx >> 25) & 1;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    int sha = (ebx >> 29) & 1;
    return sse41 && aes && sha;
#else
    return 0;
#endif
}

int cs_use_hardware(void) {
    static int present = -1;
    int known = __atomic_load_n(&present, __ATOMIC_RELAXED);
    if (known < 0) {
        known = hardwarePresent();
        __atomic_store_n(&present, known, __ATOMIC_RELAXED);
    }
    return known && !__atomic_load_n(&forcePortable, __ATOMIC_RELAXED);
}

int cipherstore_kdf_hardware_accelerated(void) {
    return cs_use_hardware();
}

void cipherstore_kdf_force_portable(int portable) {
    __atomic_store_n(&forcePortable, portable ? 1 : 0, __ATOMIC_RELAXED);
}

void cs_wipe(void *bytes, size_t count) {
    volatile uint8_t *cursor = bytes;
    while (count--) *cursor++ = 0;
}
