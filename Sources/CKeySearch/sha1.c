// SHA-1's compression function: portable C, and the SHA-NI instructions of x86-64.
#include "internal.h"

#if CS_X86
#include <immintrin.h>
#endif

void cs_sha1_compress_portable(uint32_t state[5], const uint32_t words[16]) {
    uint32_t w[16];
    for (int i = 0; i < 16; i++) w[i] = words[i];
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
    for (int i = 0; i < 80; i++) {
        if (i >= 16) w[i & 15] = cs_rotl32(w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15], 1);
        uint32_t f, k;
        if (i < 20) { f = (b & c) | (~b & d); k = 0x5a827999; }
        else if (i < 40) { f = b ^ c ^ d; k = 0x6ed9eba1; }
        else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8f1bbcdc; }
        else { f = b ^ c ^ d; k = 0xca62c1d6; }
        uint32_t t = cs_rotl32(a, 5) + f + e + k + w[i & 15];
        e = d; d = c; c = cs_rotl32(b, 30); b = a; a = t;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d; state[4] += e;
}

#if CS_X86
// Four rounds at a time, the message schedule four words ahead (Intel's SHA extensions guide).
// Group g (rounds 4g to 4g+3) adds message block g to E, and prepares the blocks after it.
#define LOAD(i) _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(words + 4 * (i))), 0x1B)
#define GROUP(eNext, eThis, current, function) \
    eNext = _mm_sha1nexte_epu32(eNext, current); \
    eThis = abcd; \
    abcd = _mm_sha1rnds4_epu32(abcd, eNext, function)

__attribute__((target("sha,sse4.1")))
void cs_sha1_compress_shani(uint32_t state[5], const uint32_t words[16]) {
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1B);
    __m128i e0 = _mm_set_epi32((int)state[4], 0, 0, 0), e1;
    const __m128i abcdSaved = abcd, eSaved = e0;
    __m128i m0 = LOAD(0), m1 = LOAD(1), m2 = LOAD(2), m3 = LOAD(3);

    e0 = _mm_add_epi32(e0, m0);                                                     // 0-3
    e1 = abcd; abcd = _mm_sha1rnds4_epu32(abcd, e0, 0);
    GROUP(e1, e0, m1, 0); m0 = _mm_sha1msg1_epu32(m0, m1);                          // 4-7
    GROUP(e0, e1, m2, 0); m1 = _mm_sha1msg1_epu32(m1, m2); m0 = _mm_xor_si128(m0, m2); // 8-11
    // From here on, each group also finishes the next block (msg2), starts the one three
    // ahead (msg1) and mixes the one two ahead (xor).
#define FULL(eNext, eThis, current, next, twoAhead, threeAhead, function) \
    eNext = _mm_sha1nexte_epu32(eNext, current); \
    eThis = abcd; \
    next = _mm_sha1msg2_epu32(next, current); \
    abcd = _mm_sha1rnds4_epu32(abcd, eNext, function); \
    threeAhead = _mm_sha1msg1_epu32(threeAhead, current); \
    twoAhead = _mm_xor_si128(twoAhead, current)
    FULL(e1, e0, m3, m0, m1, m2, 0);  // 12-15
    FULL(e0, e1, m0, m1, m2, m3, 0);  // 16-19
    FULL(e1, e0, m1, m2, m3, m0, 1);  // 20-23
    FULL(e0, e1, m2, m3, m0, m1, 1);  // 24-27
    FULL(e1, e0, m3, m0, m1, m2, 1);  // 28-31
    FULL(e0, e1, m0, m1, m2, m3, 1);  // 32-35
    FULL(e1, e0, m1, m2, m3, m0, 1);  // 36-39
    FULL(e0, e1, m2, m3, m0, m1, 2);  // 40-43
    FULL(e1, e0, m3, m0, m1, m2, 2);  // 44-47
    FULL(e0, e1, m0, m1, m2, m3, 2);  // 48-51
    FULL(e1, e0, m1, m2, m3, m0, 2);  // 52-55
    FULL(e0, e1, m2, m3, m0, m1, 2);  // 56-59
    FULL(e1, e0, m3, m0, m1, m2, 3);  // 60-63
    FULL(e0, e1, m0, m1, m2, m3, 3);  // 64-67
#undef FULL
    e1 = _mm_sha1nexte_epu32(e1, m1); e0 = abcd;                                    // 68-71
    m2 = _mm_sha1msg2_epu32(m2, m1); abcd = _mm_sha1rnds4_epu32(abcd, e1, 3); m3 = _mm_xor_si128(m3, m1);
    e0 = _mm_sha1nexte_epu32(e0, m2); e1 = abcd;                                    // 72-75
    m3 = _mm_sha1msg2_epu32(m3, m2); abcd = _mm_sha1rnds4_epu32(abcd, e0, 3);
    GROUP(e1, e0, m3, 3);                                                           // 76-79

    e0 = _mm_sha1nexte_epu32(e0, eSaved);
    abcd = _mm_add_epi32(abcd, abcdSaved);
    _mm_storeu_si128((__m128i *)state, _mm_shuffle_epi32(abcd, 0x1B));
    state[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}
#undef GROUP
#undef LOAD
#endif
