// PBKDF2-HMAC (RFC 8018, 5.2) run one iteration at a time, so that every count's key can be
// tested on the way.
//
// The HMAC key is fixed (the password), so its padded blocks are hashed once and each
// iteration costs two compressions per output block: the inner hash of U and the outer hash
// of that. SHA-1 gives 20 bytes per block, so a 32-byte key takes two blocks, each its own
// chain of U; SHA-256 and SHA-512 need one.
#include "internal.h"
#include "key_search.h"

#include <stdlib.h>
#include <string.h>

struct cipherstore_kdf_chain {
    cipherstore_kdf_hash hash;
    uint32_t count;
    int blocks;
    cs_compress32 compress32;
    cs_compress64 compress64;
    cs_aes256_expand expand;
    cs_aes256_decrypt decrypt;
    // SHA-1 and SHA-256: the states after the key's inner and outer pad, each block's next U
    // laid out as the message of the inner hash (padding included), and each block's T.
    uint32_t inner32[8], outer32[8], u32[2][16], t32[2][8];
    // SHA-512: the same in 64-bit words.
    uint64_t inner64[8], outer64[8], u64[16], t64[8];
};

static const uint32_t SHA1_IV[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
static const uint32_t SHA256_IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
static const uint64_t SHA512_IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

// What the setup needs to know of a hash: sizes in bytes.
typedef struct {
    size_t block, digest, stateWords;
    int wide;  // 64-bit words (SHA-512)
} Shape;

static Shape shapeOf(cipherstore_kdf_hash hash) {
    switch (hash) {
    case CIPHERSTORE_KDF_SHA1: return (Shape){64, 20, 5, 0};
    case CIPHERSTORE_KDF_SHA256: return (Shape){64, 32, 8, 0};
    default: return (Shape){128, 64, 8, 1};
    }
}

static void compressBytes(const cipherstore_kdf_chain *chain, Shape shape, void *state, const uint8_t *block) {
    if (shape.wide) {
        uint64_t words[16];
        for (int i = 0; i < 16; i++) {
            uint64_t word = 0;
            for (int j = 0; j < 8; j++) word = word << 8 | block[8 * i + j];
            words[i] = word;
        }
        chain->compress64(state, words);
        cs_wipe(words, sizeof words);
    } else {
        uint32_t words[16];
        for (int i = 0; i < 16; i++) {
            words[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 | (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
        }
        chain->compress32(state, words);
        cs_wipe(words, sizeof words);
    }
}

// Hashes `length` bytes after `prior` bytes already compressed into `state`, with the final
// padding; the digest stays in `state`.
static void finish(const cipherstore_kdf_chain *chain, Shape shape, void *state, uint64_t prior, const uint8_t *bytes, size_t length) {
    uint64_t bits = (prior + length) * 8;
    for (; length >= shape.block; bytes += shape.block, length -= shape.block) compressBytes(chain, shape, state, bytes);
    uint8_t last[256] = {0};
    memcpy(last, bytes, length);
    last[length] = 0x80;
    size_t lengthField = shape.wide ? 16 : 8;
    size_t total = length + 1 + lengthField <= shape.block ? shape.block : 2 * shape.block;
    for (int i = 0; i < 8; i++) last[total - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t offset = 0; offset < total; offset += shape.block) compressBytes(chain, shape, state, last + offset);
    cs_wipe(last, sizeof last);
}

static void digestBytes(Shape shape, const void *state, uint8_t *out) {
    for (size_t i = 0; i < shape.digest; i++) {
        out[i] = shape.wide ? (uint8_t)(((const uint64_t *)state)[i / 8] >> (56 - 8 * (i % 8)))
                            : (uint8_t)(((const uint32_t *)state)[i / 4] >> (24 - 8 * (i % 4)));
    }
}

static void setInitial(Shape shape, cipherstore_kdf_hash hash, void *state) {
    if (shape.wide) memcpy(state, SHA512_IV, sizeof SHA512_IV);
    else if (hash == CIPHERSTORE_KDF_SHA1) memcpy(state, SHA1_IV, sizeof SHA1_IV);
    else memcpy(state, SHA256_IV, sizeof SHA256_IV);
}

cipherstore_kdf_chain *cipherstore_kdf_chain_create(cipherstore_kdf_hash hash, const void *password, size_t password_length,
                                                    const void *salt, size_t salt_length) {
    if (hash != CIPHERSTORE_KDF_SHA1 && hash != CIPHERSTORE_KDF_SHA256 && hash != CIPHERSTORE_KDF_SHA512) return NULL;
    if (salt_length > 128) return NULL;
    cipherstore_kdf_chain *chain = calloc(1, sizeof *chain);
    if (!chain) return NULL;
    Shape shape = shapeOf(hash);
    int hardware = cs_use_hardware();
    chain->hash = hash;
    chain->blocks = hash == CIPHERSTORE_KDF_SHA1 ? 2 : 1;
    chain->compress64 = cs_sha512_compress_portable;
    chain->compress32 = hash == CIPHERSTORE_KDF_SHA1 ? cs_sha1_compress_portable : cs_sha256_compress_portable;
    chain->expand = cs_aes256_expand_portable;
    chain->decrypt = cs_aes256_decrypt_portable;
#if CS_X86
    if (hardware) {
        chain->compress32 = hash == CIPHERSTORE_KDF_SHA1 ? cs_sha1_compress_shani : cs_sha256_compress_shani;
        chain->expand = cs_aes256_expand_aesni;
        chain->decrypt = cs_aes256_decrypt_aesni;
    }
#else
    (void)hardware;
#endif

    // The HMAC key: the password, hashed first when longer than a block; then its two pads.
    uint8_t key[128] = {0}, pad[128];
    uint64_t scratch[8];
    if (password_length > shape.block) {
        setInitial(shape, hash, scratch);
        finish(chain, shape, scratch, 0, password, password_length);
        digestBytes(shape, scratch, key);
    } else if (password_length > 0) {
        memcpy(key, password, password_length);
    }
    void *inner = shape.wide ? (void *)chain->inner64 : (void *)chain->inner32;
    void *outer = shape.wide ? (void *)chain->outer64 : (void *)chain->outer32;
    for (size_t i = 0; i < shape.block; i++) pad[i] = key[i] ^ 0x36;
    setInitial(shape, hash, inner);
    compressBytes(chain, shape, inner, pad);
    for (size_t i = 0; i < shape.block; i++) pad[i] = key[i] ^ 0x5c;
    setInitial(shape, hash, outer);
    compressBytes(chain, shape, outer, pad);

    // U1 of each block: the HMAC of the salt and the block's number.
    uint8_t message[132], digest[64];
    memcpy(message, salt, salt_length);
    for (int block = 0; block < chain->blocks; block++) {
        message[salt_length] = 0; message[salt_length + 1] = 0; message[salt_length + 2] = 0;
        message[salt_length + 3] = (uint8_t)(block + 1);
        memcpy(scratch, inner, sizeof scratch);
        finish(chain, shape, scratch, shape.block, message, salt_length + 4);
        digestBytes(shape, scratch, digest);
        memcpy(scratch, outer, sizeof scratch);
        finish(chain, shape, scratch, shape.block, digest, shape.digest);
        // The next inner hash's message: U, then the padding of a block-plus-digest message.
        if (shape.wide) {
            memcpy(chain->u64, scratch, 64);
            chain->u64[8] = 0x8000000000000000ULL;
            chain->u64[15] = (shape.block + shape.digest) * 8;
        } else {
            memcpy(chain->u32[block], scratch, shape.digest);
            chain->u32[block][shape.digest / 4] = 0x80000000;
            chain->u32[block][15] = (uint32_t)((shape.block + shape.digest) * 8);
        }
    }
    cs_wipe(key, sizeof key);
    cs_wipe(pad, sizeof pad);
    cs_wipe(scratch, sizeof scratch);
    cs_wipe(message, sizeof message);
    cs_wipe(digest, sizeof digest);
    return chain;
}

void cipherstore_kdf_chain_free(cipherstore_kdf_chain *chain) {
    if (!chain) return;
    cs_wipe(chain, sizeof *chain);
    free(chain);
}

uint32_t cipherstore_kdf_chain_count(const cipherstore_kdf_chain *chain) {
    return chain->count;
}

void cipherstore_kdf_chain_key(const cipherstore_kdf_chain *chain, uint8_t key[32]) {
    for (int i = 0; i < 32; i++) {
        if (chain->hash == CIPHERSTORE_KDF_SHA512) key[i] = (uint8_t)(chain->t64[i / 8] >> (56 - 8 * (i % 8)));
        else if (chain->hash == CIPHERSTORE_KDF_SHA256 || i < 20) key[i] = (uint8_t)(chain->t32[0][i / 4] >> (24 - 8 * (i % 4)));
        else key[i] = (uint8_t)(chain->t32[1][(i - 20) / 4] >> (24 - 8 * ((i - 20) % 4)));
    }
}

// Scratch space of one call of cipherstore_kdf_chain_run(), wiped when it returns rather than
// at each iteration: the intermediate hashes, the key tested and its AES round keys.
typedef struct {
    _Alignas(16) uint8_t schedule[240];
    uint32_t state32[8], message32[16];
    uint64_t state64[8], message64[16];
    uint8_t key[32], plaintext[16];
} Scratch;

// One iteration: T ^= U, then the next U = HMAC(U), as two compressions per block.
static inline void step32(cipherstore_kdf_chain *chain, int words, Scratch *scratch) {
    uint32_t *state = scratch->state32, *message = scratch->message32;
    for (int block = 0; block < chain->blocks; block++) {
        uint32_t *u = chain->u32[block];
        for (int i = 0; i < words; i++) chain->t32[block][i] ^= u[i];
        memset(message, 0, sizeof scratch->message32);
        memcpy(state, chain->inner32, sizeof scratch->state32);
        chain->compress32(state, u);
        memcpy(message, state, (size_t)words * 4);
        message[words] = 0x80000000;
        message[15] = u[15];
        memcpy(state, chain->outer32, sizeof scratch->state32);
        chain->compress32(state, message);
        memcpy(u, state, (size_t)words * 4);
    }
}

static inline void step64(cipherstore_kdf_chain *chain, Scratch *scratch) {
    uint64_t *state = scratch->state64, *message = scratch->message64;
    for (int i = 0; i < 8; i++) chain->t64[i] ^= chain->u64[i];
    memset(message, 0, sizeof scratch->message64);
    memcpy(state, chain->inner64, sizeof scratch->state64);
    chain->compress64(state, chain->u64);
    memcpy(message, state, sizeof scratch->state64);
    message[8] = 0x8000000000000000ULL;
    message[15] = chain->u64[15];
    memcpy(state, chain->outer64, sizeof scratch->state64);
    chain->compress64(state, message);
    memcpy(chain->u64, state, sizeof scratch->state64);
}

// Whether `key` may be the page key of `page`: bytes 72 to 79 of SQLite's header (reserved,
// zero) decrypt to zero; or, when the encryption starts at byte 16, bytes 44 to 47 (the schema
// format number, 0 to 4) decrypt to a small number. Each block decrypts chained on the
// ciphertext block before it, so no page size is needed; the two depend on different bytes of
// the page, so one damaged byte leaves one of them passing for the right key.
static int mayBePageKey(const cipherstore_kdf_chain *chain, Scratch *scratch, const uint8_t *page, size_t headerSize) {
    chain->expand(scratch->key, scratch->schedule);
    chain->decrypt(scratch->schedule, page + 64, scratch->plaintext);
    if (memcmp(scratch->plaintext + 8, page + 56, 8) == 0) return 1;
    if (headerSize != 16) return 0;
    chain->decrypt(scratch->schedule, page + 32, scratch->plaintext);
    for (int i = 12; i < 16; i++) scratch->plaintext[i] ^= page[16 + i];
    return scratch->plaintext[12] == 0 && scratch->plaintext[13] == 0 && scratch->plaintext[14] == 0 && scratch->plaintext[15] <= 4;
}

int cipherstore_kdf_chain_run(cipherstore_kdf_chain *chain, uint32_t until, const uint8_t *page, size_t header_size) {
    int words = chain->hash == CIPHERSTORE_KDF_SHA1 ? 5 : 8;
    Scratch scratch;
    int found = 0;
    while (chain->count < until) {
        if (chain->hash == CIPHERSTORE_KDF_SHA512) step64(chain, &scratch);
        else step32(chain, words, &scratch);
        chain->count++;
        if (!page) continue;
        cipherstore_kdf_chain_key(chain, scratch.key);
        if (mayBePageKey(chain, &scratch, page, header_size)) {
            found = 1;
            break;
        }
    }
    cs_wipe(&scratch, sizeof scratch);
    return found;
}
