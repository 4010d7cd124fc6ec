// Shared by the files of the key search: compression functions, AES, processor features.
#ifndef CIPHERSTORE_KEY_SEARCH_INTERNAL_H
#define CIPHERSTORE_KEY_SEARCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define CS_X86 1
#else
#define CS_X86 0
#endif

// One block of each hash: the state updated with 16 message words, already in the hash's
// (big-endian) order as native integers.
typedef void (*cs_compress32)(uint32_t *state, const uint32_t words[16]);
typedef void (*cs_compress64)(uint64_t *state, const uint64_t words[16]);

void cs_sha1_compress_portable(uint32_t state[5], const uint32_t words[16]);
void cs_sha256_compress_portable(uint32_t state[8], const uint32_t words[16]);
void cs_sha512_compress_portable(uint64_t state[8], const uint64_t words[16]);
#if CS_X86
void cs_sha1_compress_shani(uint32_t state[5], const uint32_t words[16]);
void cs_sha256_compress_shani(uint32_t state[8], const uint32_t words[16]);
#endif

// AES-256 decryption: the round keys of a key (240 bytes, 16-byte aligned; the caller wipes
// them once it is done with the key, not once per block), then blocks with them.
typedef void (*cs_aes256_expand)(const uint8_t key[32], uint8_t *schedule);
typedef void (*cs_aes256_decrypt)(const uint8_t *schedule, const uint8_t in[16], uint8_t out[16]);
void cs_aes256_expand_portable(const uint8_t key[32], uint8_t *schedule);
void cs_aes256_decrypt_portable(const uint8_t *schedule, const uint8_t in[16], uint8_t out[16]);
#if CS_X86
void cs_aes256_expand_aesni(const uint8_t key[32], uint8_t *schedule);
void cs_aes256_decrypt_aesni(const uint8_t *schedule, const uint8_t in[16], uint8_t out[16]);
#endif

// Whether the processor has SHA-NI (with SSE4.1) and AES-NI, and the tests have not asked for
// the portable code.
int cs_use_hardware(void);

// Zeroes memory that held secrets; volatile stores, so the compiler keeps them.
void cs_wipe(void *bytes, size_t count);

static inline uint32_t cs_rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
static inline uint32_t cs_rotr32(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
static inline uint64_t cs_rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

#endif
