// CRC-32 (zlib's, gzip's and git's pack indexes': the reflected 0x04C11DB7 polynomial) by folding
// with PCLMULQDQ, after Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
// Instruction" (Gopal et al., 2009): four 128-bit lanes folded 512 bits at a time, folded into one
// lane, reduced to 64 then 32 bits, then a Barrett reduction. The last bytes short of 16, inputs
// under 64 bytes and processors without the instruction go to zlib.
#include "fast_crc32.h"

#include <zlib.h>

#if defined(__x86_64__)
#include <immintrin.h>

// x^(4*128+32) and x^(4*128-32) mod P, bit-reflected: fold four lanes across 512 bits.
#define FOLD_512_HIGH 0x00000001c6e41596ULL
#define FOLD_512_LOW 0x0000000154442bd4ULL
// The same across 128 bits: fold one lane into the next.
#define FOLD_128_HIGH 0x00000000ccaa009eULL
#define FOLD_128_LOW 0x00000001751997d0ULL
// x^64 mod P: the last fold to 64 bits.
#define FOLD_64 0x0000000163cd6124ULL
// Barrett reduction: floor(x^64 / P) and P, bit-reflected.
#define BARRETT_MU 0x00000001f7011641ULL
#define POLYNOMIAL 0x00000001db710641ULL

// The CRC register (not inverted) after `length` bytes, `length` at least 64 and a multiple of 16.
__attribute__((target("pclmul,sse4.1"))) static uint32_t fold(uint32_t crc, const uint8_t *p, size_t length) {
    __m128i x1 = _mm_loadu_si128((const __m128i *)p);
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i x4 = _mm_loadu_si128((const __m128i *)(p + 48));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
    p += 64;
    length -= 64;
    __m128i k = _mm_set_epi64x((long long)FOLD_512_HIGH, (long long)FOLD_512_LOW);
    while (length >= 64) {
        __m128i h1 = _mm_clmulepi64_si128(x1, k, 0x11);
        __m128i h2 = _mm_clmulepi64_si128(x2, k, 0x11);
        __m128i h3 = _mm_clmulepi64_si128(x3, k, 0x11);
        __m128i h4 = _mm_clmulepi64_si128(x4, k, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k, 0x00), h1), _mm_loadu_si128((const __m128i *)p));
        x2 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x2, k, 0x00), h2),
                           _mm_loadu_si128((const __m128i *)(p + 16)));
        x3 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x3, k, 0x00), h3),
                           _mm_loadu_si128((const __m128i *)(p + 32)));
        x4 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x4, k, 0x00), h4),
                           _mm_loadu_si128((const __m128i *)(p + 48)));
        p += 64;
        length -= 64;
    }
    k = _mm_set_epi64x((long long)FOLD_128_HIGH, (long long)FOLD_128_LOW);
    const __m128i lanes[3] = {x2, x3, x4};
    for (int lane = 0; lane < 3; lane++) {
        __m128i high = _mm_clmulepi64_si128(x1, k, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k, 0x00), high), lanes[lane]);
    }
    while (length >= 16) {
        __m128i high = _mm_clmulepi64_si128(x1, k, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k, 0x00), high), _mm_loadu_si128((const __m128i *)p));
        p += 16;
        length -= 16;
    }
    // 128 -> 64 bits (with 32 zero bits appended): the low half times x^128's constant, into the high half.
    __m128i folded = _mm_clmulepi64_si128(k, x1, 0x01);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), folded);
    // 64 -> 32 bits.
    const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
    k = _mm_set_epi64x(0, (long long)FOLD_64);
    __m128i low = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), k, 0x00);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 4), low);
    // Barrett reduction to the 32-bit remainder.
    k = _mm_set_epi64x((long long)BARRETT_MU, (long long)POLYNOMIAL);
    __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x1, mask32), k, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), k, 0x00);
    x1 = _mm_xor_si128(x1, t);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

int cards_crc32_is_folded(void) {
    // A read of what libgcc's start-up found (no state of ours, so no race between threads).
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

uint32_t cards_crc32(uint32_t crc, const uint8_t *bytes, size_t length) {
    if (length < 64 || !cards_crc32_is_folded()) return (uint32_t)crc32_z(crc, bytes, length);
    size_t folded = length & ~(size_t)15;
    // zlib's CRC is the register inverted on the way in and out.
    crc = ~fold(~crc, bytes, folded);
    return (uint32_t)crc32_z(crc, bytes + folded, length - folded);
}

#else

int cards_crc32_is_folded(void) { return 0; }

uint32_t cards_crc32(uint32_t crc, const uint8_t *bytes, size_t length) {
    return (uint32_t)crc32_z(crc, bytes, length);
}

#endif
