// SHA-256's compression function: portable C, and the SHA-NI instructions of x86-64.
#include "internal.h"

#if CS_X86
#include <immintrin.h>
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

void cs_sha256_compress_portable(uint32_t state[8], const uint32_t words[16]) {
    uint32_t w[16];
    for (int i = 0; i < 16; i++) w[i] = words[i];
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
        if (i >= 16) {
            uint32_t x = w[(i + 1) & 15], y = w[(i + 14) & 15];
            w[i & 15] += (cs_rotr32(x, 7) ^ cs_rotr32(x, 18) ^ (x >> 3)) + w[(i + 9) & 15]
                + (cs_rotr32(y, 17) ^ cs_rotr32(y, 19) ^ (y >> 10));
        }
        uint32_t t1 = h + (cs_rotr32(e, 6) ^ cs_rotr32(e, 11) ^ cs_rotr32(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i & 15];
        uint32_t t2 = (cs_rotr32(a, 2) ^ cs_rotr32(a, 13) ^ cs_rotr32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d;
    state[4] += e; state[5] += f; state[6] += g; state[7] += h;
}

#if CS_X86
// Two rounds per sha256rnds2, four per group; the schedule runs three groups ahead (Intel's
// SHA extensions guide). The state lives as ABEF and CDGH.
#define ROUNDS(current, group) \
    message = _mm_add_epi32(current, _mm_loadu_si128((const __m128i *)(K + 4 * (group)))); \
    cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message); \
    message = _mm_shuffle_epi32(message, 0x0E); \
    abef = _mm_sha256rnds2_epu32(abef, cdgh, message)
// The rounds of group `group` with `current`; then `next` completed (msg2), `threeAhead` started (msg1).
#define FINISH(current, previous, next) \
    next = _mm_sha256msg2_epu32(_mm_add_epi32(next, _mm_alignr_epi8(current, previous, 4)), current)

__attribute__((target("sha,sse4.1")))
void cs_sha256_compress_shani(uint32_t state[8], const uint32_t words[16]) {
    __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0xB1);     // CDAB
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(state + 4)), 0x1B); // EFGH
    __m128i abef = _mm_alignr_epi8(dcba, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, dcba, 0xF0);
    const __m128i abefSaved = abef, cdghSaved = cdgh;
    __m128i message;
    __m128i m0 = _mm_loadu_si128((const __m128i *)words), m1 = _mm_loadu_si128((const __m128i *)(words + 4));
    __m128i m2 = _mm_loadu_si128((const __m128i *)(words + 8)), m3 = _mm_loadu_si128((const __m128i *)(words + 12));

    ROUNDS(m0, 0);
    ROUNDS(m1, 1); m0 = _mm_sha256msg1_epu32(m0, m1);
    ROUNDS(m2, 2); m1 = _mm_sha256msg1_epu32(m1, m2);
    ROUNDS(m3, 3); FINISH(m3, m2, m0); m2 = _mm_sha256msg1_epu32(m2, m3);
    ROUNDS(m0, 4); FINISH(m0, m3, m1); m3 = _mm_sha256msg1_epu32(m3, m0);
    ROUNDS(m1, 5); FINISH(m1, m0, m2); m0 = _mm_sha256msg1_epu32(m0, m1);
    ROUNDS(m2, 6); FINISH(m2, m1, m3); m1 = _mm_sha256msg1_epu32(m1, m2);
    ROUNDS(m3, 7); FINISH(m3, m2, m0); m2 = _mm_sha256msg1_epu32(m2, m3);
    ROUNDS(m0, 8); FINISH(m0, m3, m1); m3 = _mm_sha256msg1_epu32(m3, m0);
    ROUNDS(m1, 9); FINISH(m1, m0, m2); m0 = _mm_sha256msg1_epu32(m0, m1);
    ROUNDS(m2, 10); FINISH(m2, m1, m3); m1 = _mm_sha256msg1_epu32(m1, m2);
    ROUNDS(m3, 11); FINISH(m3, m2, m0); m2 = _mm_sha256msg1_epu32(m2, m3);
    ROUNDS(m0, 12); FINISH(m0, m3, m1); m3 = _mm_sha256msg1_epu32(m3, m0);
    ROUNDS(m1, 13); FINISH(m1, m0, m2);
    ROUNDS(m2, 14); FINISH(m2, m1, m3);
    ROUNDS(m3, 15);

    abef = _mm_add_epi32(abef, abefSaved);
    cdgh = _mm_add_epi32(cdgh, cdghSaved);
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)state, _mm_blend_epi16(feba, dchg, 0xF0));        // DCBA
    _mm_storeu_si128((__m128i *)(state + 4), _mm_alignr_epi8(dchg, feba, 8));     // HGFE
}
#undef ROUNDS
#undef FINISH
#endif
