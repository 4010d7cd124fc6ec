#ifndef CIPHERSTORE_KEY_SEARCH_H
#define CIPHERSTORE_KEY_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/// The hash of a PBKDF2 run: SQLCipher's cipher_kdf_algorithm.
typedef enum {
    CIPHERSTORE_KDF_SHA1 = 1,
    CIPHERSTORE_KDF_SHA256 = 2,
    CIPHERSTORE_KDF_SHA512 = 3,
} cipherstore_kdf_hash;

/// One PBKDF2-HMAC run that yields the 32-byte key of every iteration count on its way.
///
/// PBKDF2's output block for c iterations is U1 xor ... xor Uc, each U the HMAC of the one
/// before: running to the largest count passes every smaller count's key. Its state (the
/// HMAC pads, the running blocks) is secret; cipherstore_kdf_chain_free() wipes it.
typedef struct cipherstore_kdf_chain cipherstore_kdf_chain;

/// A run at count 0 for `password` and `salt` (at most 128 bytes); NULL when out of memory or
/// for a salt too long or an unknown hash.
cipherstore_kdf_chain *cipherstore_kdf_chain_create(cipherstore_kdf_hash hash, const void *password, size_t password_length,
                                                    const void *salt, size_t salt_length);

/// Wipes and frees a run; NULL does nothing.
void cipherstore_kdf_chain_free(cipherstore_kdf_chain *chain);

/// The iteration count the run has reached (0 before the first).
uint32_t cipherstore_kdf_chain_count(const cipherstore_kdf_chain *chain);

/// Writes the 32-byte key of the count reached (after at least one iteration).
void cipherstore_kdf_chain_key(const cipherstore_kdf_chain *chain, uint8_t key[32]);

/// Runs iterations until the count reaches `until`; with `page` (the first 80 bytes of an
/// encrypted first page, whose encryption starts at byte `header_size`: 16 after the salt, or
/// 32 or 48 after a plaintext header), stops earlier at the first count whose key could be the
/// page key.
///
/// The test is one or two AES-256 blocks. A SQLCipher first page is AES-256-CBC encrypted from
/// `header_size` on, so bytes 64 to 79 decrypt, chained on bytes 48 to 63, to bytes 64 to 79 of
/// SQLite's header, whose bytes 72 to 79 are reserved and always zero: a wrong key passes with a
/// chance of 2^-64, whatever the page size or reserve. After a 16-byte salt, bytes 32 to 47 are
/// tried as well (bytes 44 to 47, the schema format number, are 0 to 4; a chance of 2^-29), so
/// that one damaged byte of the header does not hide the right key.
///
/// Returns 1 when it stopped on a key that passes, 0 when it reached `until`.
int cipherstore_kdf_chain_run(cipherstore_kdf_chain *chain, uint32_t until, const uint8_t *page, size_t header_size);

/// Whether this processor's SHA and AES instructions are used (x86-64 with SHA-NI and AES-NI);
/// otherwise portable C does the same work, several times slower.
int cipherstore_kdf_hardware_accelerated(void);

/// For the tests: 1 makes every later run use the portable C code, 0 goes back to the default.
void cipherstore_kdf_force_portable(int portable);

#endif
