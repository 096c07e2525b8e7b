/* A vector of floats as wide as the build (vector_isa.h): 16 lanes in the AVX-512 build, 8 in the AVX2 build, 4
 * (SSE2) in the baseline x86-64 build, 1 (a plain float) elsewhere (WebAssembly; or with EDDY_VF_SCALAR defined, as
 * a test does to check that path on x86), with the operations that hand-vectorised row kernels need. Every
 * arithmetic operation is the IEEE single-precision operation of each lane, rounded once, never fused (no FMA), so a
 * kernel written with these gives the same bits at every width and as the scalar formula.
 *
 * Loads and stores: vf_load / vf_store need addresses aligned to the vector (scratch rows), vf_loadu / vf_storeu
 * any; vf_loadn / vf_storen touch only the first n lanes (n < VF_W: the end of a row of a simulation array, which
 * must not be read or written past its end); the other lanes load as +0. vf_stream stores an aligned vector past
 * the caches (non-temporal); vf_stream_fence orders such stores before whatever follows (other threads' reads).
 * vf_shift_in(prev, cur) and vf_shift_out(cur, next) move the lanes of consecutive vectors of a row one step: lane k
 * gets element k - 1, resp. k + 1, of the row. vf_max(a, b) is a > b ? a : b per lane (b where either is NaN, as
 * the scalar expression), vf_keep(x, m) x where the mask keeps and +0 elsewhere, vf_div_keep(a, b, m) the same of
 * a / b (AVX-512: lanes not kept are not divided), vf_count the lanes a mask keeps, vf_hmax the largest lane (lanes
 * that are not NaN: then exact in any order). vd_sums: eight double sums, sum l taking the elements i with i % 8 == l in order of i (the
 * diagnostics' sums, the same bits at every width): vd_add(&s, v, lane0) adds v's lanes, the first of them element
 * lane0 (mod 8) of its row, lane0 a multiple of VF_W below 8 (0 from 8 lanes up). */
#ifndef EDDY_FLOAT_VECTOR_H
#define EDDY_FLOAT_VECTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__)
#define VF_INLINE static inline __attribute__((always_inline))
#else
#define VF_INLINE static inline
#endif

/* ask for the cache line holding p (it never faults, wherever p points) */
#if defined(__GNUC__)
#define vf_prefetch(p) __builtin_prefetch((p), 0, 3)
#else
#define vf_prefetch(p) ((void)(p))
#endif

#if defined(__AVX512F__) && !defined(EDDY_VF_SCALAR)
#include <immintrin.h>
#define VF_W 16
typedef __m512 vfloat;
typedef __mmask16 vmask; /* per lane: keep */
VF_INLINE vfloat vf_set1(float x) { return _mm512_set1_ps(x); }
VF_INLINE vfloat vf_load(const float *p) { return _mm512_load_ps(p); }
VF_INLINE vfloat vf_loadu(const float *p) { return _mm512_loadu_ps(p); }
VF_INLINE void vf_store(float *p, vfloat v) { _mm512_store_ps(p, v); }
VF_INLINE void vf_storeu(float *p, vfloat v) { _mm512_storeu_ps(p, v); }
VF_INLINE vfloat vf_loadn(const float *p, int n) { return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p); }
VF_INLINE void vf_storen(float *p, vfloat v, int n) { _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), v); }
VF_INLINE void vf_stream(float *p, vfloat v) { _mm512_stream_ps(p, v); }
VF_INLINE void vf_stream_fence(void) { _mm_sfence(); }
VF_INLINE vfloat vf_add(vfloat a, vfloat b) { return _mm512_add_ps(a, b); }
VF_INLINE vfloat vf_sub(vfloat a, vfloat b) { return _mm512_sub_ps(a, b); }
VF_INLINE vfloat vf_mul(vfloat a, vfloat b) { return _mm512_mul_ps(a, b); }
VF_INLINE vfloat vf_div(vfloat a, vfloat b) { return _mm512_div_ps(a, b); }
VF_INLINE vfloat vf_sqrt(vfloat a) { return _mm512_sqrt_ps(a); }
/* (x > limit) & (byte == 0) per lane, the bytes at b (n valid) */
VF_INLINE vmask vf_keep_mask(vfloat x, vfloat limit, const uint8_t *b, int n) {
    __m128i bytes;
    if (n == VF_W) bytes = _mm_loadu_si128((const __m128i *)(const void *)b);
    else {
        uint8_t t[16] = {0};
        memcpy(t, b, (size_t)n);
        bytes = _mm_loadu_si128((const __m128i *)(const void *)t);
    }
    __mmask16 fluid = _mm512_cmpeq_epi32_mask(_mm512_cvtepu8_epi32(bytes), _mm512_setzero_si512());
    return _mm512_cmp_ps_mask(x, limit, _CMP_GT_OQ) & fluid;
}
VF_INLINE vfloat vf_keep(vfloat x, vmask m) { return _mm512_maskz_mov_ps(m, x); } /* x, or +0 */
VF_INLINE vfloat vf_div_keep(vfloat a, vfloat b, vmask m) { return _mm512_maskz_div_ps(m, a, b); } /* a / b, or +0 */
VF_INLINE vfloat vf_max(vfloat a, vfloat b) { return _mm512_max_ps(a, b); } /* a > b ? a : b */
VF_INLINE vfloat vf_abs(vfloat a) { return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x7fffffff))); }
VF_INLINE int vf_count(vmask m) { return __builtin_popcount((unsigned)m); }
VF_INLINE float vf_hmax(vfloat v) { return _mm512_reduce_max_ps(v); }
typedef struct vd_sums { __m512d a; } vd_sums;
VF_INLINE vd_sums vd_zero(void) { vd_sums s = {_mm512_setzero_pd()}; return s; }
VF_INLINE void vd_add(vd_sums *s, vfloat v, int lane0) {
    (void)lane0; /* 0: lanes 0-7 take elements 0-7, then 8-15 */
    s->a = _mm512_add_pd(s->a, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
    s->a = _mm512_add_pd(s->a, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
}
VF_INLINE void vd_get(const vd_sums *s, double out[8]) { _mm512_storeu_pd(out, s->a); }
/* the lanes one step along: prev's last lane, then cur's lanes but its last */
VF_INLINE vfloat vf_shift_in(vfloat prev, vfloat cur) {
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(cur), _mm512_castps_si512(prev), 15));
}
/* the lanes one step the other way: cur's lanes but its first, then next's first lane */
VF_INLINE vfloat vf_shift_out(vfloat cur, vfloat next) {
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(next), _mm512_castps_si512(cur), 1));
}
/* vf_pairs (see the end of this file): the aligned vectors around the row, two lane permutes each */
#define VF_HAVE_PAIRS 1
typedef struct vf_pairs {
    const float *line; /* the aligned vector (a cache line) that holds the row's first element */
    __m512i first, second;
    vfloat lo;
} vf_pairs;
VF_INLINE vf_pairs vf_pairs_of(const float *row) {
    const int lead = (int)((uintptr_t)row % 64 / sizeof(float));
    vf_pairs r;
    r.line = row - lead;
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    r.first = _mm512_add_epi32(_mm512_set1_epi32(lead), lanes);
    r.second = _mm512_add_epi32(r.first, _mm512_set1_epi32(1));
    r.lo = _mm512_load_ps(r.line);
    return r;
}
VF_INLINE void vf_pairs_next(vf_pairs *r, int i, vfloat *a, vfloat *b) {
    const vfloat hi = _mm512_load_ps(r->line + i + VF_W);
    *a = _mm512_permutex2var_ps(r->lo, r->first, hi);
    *b = _mm512_permutex2var_ps(r->lo, r->second, hi);
    r->lo = hi;
}
/* vf_realign (see the end of this file) */
#define VF_HAVE_REALIGN 1
typedef __m512i vf_realigner;
VF_INLINE vf_realigner vf_realigner_of(int lead) {
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm512_add_epi32(_mm512_set1_epi32(VF_W - lead), lanes);
}
VF_INLINE vfloat vf_realign(vfloat prev, vfloat cur, vf_realigner r) { return _mm512_permutex2var_ps(prev, r, cur); }
VF_INLINE void vf_store_lanes(float *p, vfloat v, int lo, int hi) {
    _mm512_mask_store_ps(p, (__mmask16)(((1u << hi) - 1u) & ~((1u << lo) - 1u)), v);
}

#elif defined(__AVX2__) && !defined(EDDY_VF_SCALAR)
#include <immintrin.h>
#define VF_W 8
typedef __m256 vfloat;
typedef __m256 vmask;
VF_INLINE vfloat vf_set1(float x) { return _mm256_set1_ps(x); }
VF_INLINE vfloat vf_load(const float *p) { return _mm256_load_ps(p); }
VF_INLINE vfloat vf_loadu(const float *p) { return _mm256_loadu_ps(p); }
VF_INLINE void vf_store(float *p, vfloat v) { _mm256_store_ps(p, v); }
VF_INLINE void vf_storeu(float *p, vfloat v) { _mm256_storeu_ps(p, v); }
VF_INLINE __m256i vf_lanes(int n) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }
VF_INLINE vfloat vf_loadn(const float *p, int n) { return _mm256_maskload_ps(p, vf_lanes(n)); }
VF_INLINE void vf_storen(float *p, vfloat v, int n) { _mm256_maskstore_ps(p, vf_lanes(n), v); }
VF_INLINE void vf_stream(float *p, vfloat v) { _mm256_stream_ps(p, v); }
VF_INLINE void vf_stream_fence(void) { _mm_sfence(); }
VF_INLINE vfloat vf_add(vfloat a, vfloat b) { return _mm256_add_ps(a, b); }
VF_INLINE vfloat vf_sub(vfloat a, vfloat b) { return _mm256_sub_ps(a, b); }
VF_INLINE vfloat vf_mul(vfloat a, vfloat b) { return _mm256_mul_ps(a, b); }
VF_INLINE vfloat vf_div(vfloat a, vfloat b) { return _mm256_div_ps(a, b); }
VF_INLINE vfloat vf_sqrt(vfloat a) { return _mm256_sqrt_ps(a); }
VF_INLINE vmask vf_keep_mask(vfloat x, vfloat limit, const uint8_t *b, int n) {
    uint8_t t[8] = {0};
    memcpy(t, b, (size_t)n); /* n == 8: one 8-byte load */
    __m256i bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)t));
    __m256 fluid = _mm256_castsi256_ps(_mm256_cmpeq_epi32(bytes, _mm256_setzero_si256()));
    return _mm256_and_ps(_mm256_cmp_ps(x, limit, _CMP_GT_OQ), fluid);
}
VF_INLINE vfloat vf_keep(vfloat x, vmask m) { return _mm256_and_ps(x, m); }
VF_INLINE vfloat vf_div_keep(vfloat a, vfloat b, vmask m) { return _mm256_and_ps(_mm256_div_ps(a, b), m); }
VF_INLINE vfloat vf_max(vfloat a, vfloat b) { return _mm256_max_ps(a, b); }
VF_INLINE vfloat vf_abs(vfloat a) { return _mm256_and_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff))); }
VF_INLINE int vf_count(vmask m) { return __builtin_popcount((unsigned)_mm256_movemask_ps(m)); }
VF_INLINE float vf_hmax(vfloat v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
}
typedef struct vd_sums { __m256d lo, hi; } vd_sums;
VF_INLINE vd_sums vd_zero(void) { vd_sums s = {_mm256_setzero_pd(), _mm256_setzero_pd()}; return s; }
VF_INLINE void vd_add(vd_sums *s, vfloat v, int lane0) {
    (void)lane0; /* 0 */
    s->lo = _mm256_add_pd(s->lo, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    s->hi = _mm256_add_pd(s->hi, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
}
VF_INLINE void vd_get(const vd_sums *s, double out[8]) {
    _mm256_storeu_pd(out, s->lo);
    _mm256_storeu_pd(out + 4, s->hi);
}
VF_INLINE vfloat vf_shift_in(vfloat prev, vfloat cur) {
    __m256 t = _mm256_permute2f128_ps(prev, cur, 0x21); /* prev's upper half, cur's lower half */
    return _mm256_castsi256_ps(_mm256_alignr_epi8(_mm256_castps_si256(cur), _mm256_castps_si256(t), 12));
}
VF_INLINE vfloat vf_shift_out(vfloat cur, vfloat next) {
    __m256 t = _mm256_permute2f128_ps(cur, next, 0x21); /* cur's upper half, next's lower half */
    return _mm256_castsi256_ps(_mm256_alignr_epi8(_mm256_castps_si256(t), _mm256_castps_si256(cur), 4));
}

#elif defined(__SSE2__) && !defined(EDDY_VF_SCALAR)
#include <emmintrin.h>
#define VF_W 4
typedef __m128 vfloat;
typedef __m128 vmask;
VF_INLINE vfloat vf_set1(float x) { return _mm_set1_ps(x); }
VF_INLINE vfloat vf_load(const float *p) { return _mm_load_ps(p); }
VF_INLINE vfloat vf_loadu(const float *p) { return _mm_loadu_ps(p); }
VF_INLINE void vf_store(float *p, vfloat v) { _mm_store_ps(p, v); }
VF_INLINE void vf_storeu(float *p, vfloat v) { _mm_storeu_ps(p, v); }
VF_INLINE vfloat vf_loadn(const float *p, int n) {
    float t[4] = {0};
    memcpy(t, p, (size_t)n * sizeof(float));
    return _mm_loadu_ps(t);
}
VF_INLINE void vf_storen(float *p, vfloat v, int n) {
    float t[4];
    _mm_storeu_ps(t, v);
    memcpy(p, t, (size_t)n * sizeof(float));
}
VF_INLINE void vf_stream(float *p, vfloat v) { _mm_stream_ps(p, v); }
VF_INLINE void vf_stream_fence(void) { _mm_sfence(); }
VF_INLINE vfloat vf_add(vfloat a, vfloat b) { return _mm_add_ps(a, b); }
VF_INLINE vfloat vf_sub(vfloat a, vfloat b) { return _mm_sub_ps(a, b); }
VF_INLINE vfloat vf_mul(vfloat a, vfloat b) { return _mm_mul_ps(a, b); }
VF_INLINE vfloat vf_div(vfloat a, vfloat b) { return _mm_div_ps(a, b); }
VF_INLINE vfloat vf_sqrt(vfloat a) { return _mm_sqrt_ps(a); }
VF_INLINE vmask vf_keep_mask(vfloat x, vfloat limit, const uint8_t *b, int n) {
    int32_t lanes[4] = {0};
    for (int i = 0; i < n; i++) lanes[i] = b[i];
    __m128i fluid = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(const void *)lanes), _mm_setzero_si128());
    return _mm_and_ps(_mm_cmpgt_ps(x, limit), _mm_castsi128_ps(fluid));
}
VF_INLINE vfloat vf_keep(vfloat x, vmask m) { return _mm_and_ps(x, m); }
VF_INLINE vfloat vf_div_keep(vfloat a, vfloat b, vmask m) { return _mm_and_ps(_mm_div_ps(a, b), m); }
VF_INLINE vfloat vf_max(vfloat a, vfloat b) { return _mm_max_ps(a, b); }
VF_INLINE vfloat vf_abs(vfloat a) { return _mm_and_ps(a, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff))); }
VF_INLINE int vf_count(vmask m) { return __builtin_popcount((unsigned)_mm_movemask_ps(m)); }
VF_INLINE float vf_hmax(vfloat m) {
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
}
typedef struct vd_sums { __m128d p[4]; } vd_sums;
VF_INLINE vd_sums vd_zero(void) {
    vd_sums s;
    for (int k = 0; k < 4; k++) s.p[k] = _mm_setzero_pd();
    return s;
}
VF_INLINE void vd_add(vd_sums *s, vfloat v, int lane0) { /* lane0 0 or 4 */
    const int k = lane0 / 2;
    s->p[k] = _mm_add_pd(s->p[k], _mm_cvtps_pd(v));
    s->p[k + 1] = _mm_add_pd(s->p[k + 1], _mm_cvtps_pd(_mm_movehl_ps(v, v)));
}
VF_INLINE void vd_get(const vd_sums *s, double out[8]) {
    for (int k = 0; k < 4; k++) _mm_storeu_pd(out + 2 * k, s->p[k]);
}
VF_INLINE vfloat vf_shift_in(vfloat prev, vfloat cur) {
    __m128 t = _mm_shuffle_ps(prev, cur, _MM_SHUFFLE(0, 0, 3, 3)); /* prev3 prev3 cur0 cur0 */
    return _mm_shuffle_ps(t, cur, _MM_SHUFFLE(2, 1, 2, 0));         /* prev3 cur0 cur1 cur2 */
}
VF_INLINE vfloat vf_shift_out(vfloat cur, vfloat next) {
    __m128 t = _mm_shuffle_ps(cur, next, _MM_SHUFFLE(0, 0, 3, 3)); /* cur3 cur3 next0 next0 */
    return _mm_shuffle_ps(cur, t, _MM_SHUFFLE(2, 0, 2, 1));         /* cur1 cur2 cur3 next0 */
}

#else
#include <math.h>
#define VF_W 1
typedef float vfloat;
typedef bool vmask;
VF_INLINE vfloat vf_set1(float x) { return x; }
VF_INLINE vfloat vf_load(const float *p) { return *p; }
VF_INLINE vfloat vf_loadu(const float *p) { return *p; }
VF_INLINE void vf_store(float *p, vfloat v) { *p = v; }
VF_INLINE void vf_storeu(float *p, vfloat v) { *p = v; }
VF_INLINE vfloat vf_loadn(const float *p, int n) { return n > 0 ? *p : 0.0f; }
VF_INLINE void vf_storen(float *p, vfloat v, int n) {
    if (n > 0) *p = v;
}
VF_INLINE void vf_stream(float *p, vfloat v) { *p = v; }
VF_INLINE void vf_stream_fence(void) {}
VF_INLINE vfloat vf_add(vfloat a, vfloat b) { return a + b; }
VF_INLINE vfloat vf_sub(vfloat a, vfloat b) { return a - b; }
VF_INLINE vfloat vf_mul(vfloat a, vfloat b) { return a * b; }
VF_INLINE vfloat vf_div(vfloat a, vfloat b) { return a / b; }
VF_INLINE vfloat vf_sqrt(vfloat a) { return sqrtf(a); }
VF_INLINE vmask vf_keep_mask(vfloat x, vfloat limit, const uint8_t *b, int n) { return n > 0 && x > limit && *b == 0; }
VF_INLINE vfloat vf_keep(vfloat x, vmask m) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    bits &= (uint32_t)0 - (uint32_t)m;
    memcpy(&x, &bits, sizeof x);
    return x;
}
VF_INLINE vfloat vf_div_keep(vfloat a, vfloat b, vmask m) { return m ? a / b : 0.0f; }
VF_INLINE vfloat vf_max(vfloat a, vfloat b) { return a > b ? a : b; }
VF_INLINE vfloat vf_abs(vfloat a) { return fabsf(a); }
VF_INLINE int vf_count(vmask m) { return m; }
VF_INLINE float vf_hmax(vfloat v) { return v; }
typedef struct vd_sums { double d[8]; } vd_sums;
VF_INLINE vd_sums vd_zero(void) {
    vd_sums s = {{0}};
    return s;
}
VF_INLINE void vd_add(vd_sums *s, vfloat v, int lane0) { s->d[lane0] += (double)v; }
VF_INLINE void vd_get(const vd_sums *s, double out[8]) { memcpy(out, s->d, sizeof s->d); }
VF_INLINE vfloat vf_shift_in(vfloat prev, vfloat cur) {
    (void)cur;
    return prev;
}
VF_INLINE vfloat vf_shift_out(vfloat cur, vfloat next) {
    (void)cur;
    return next;
}
#endif

/* the first n lanes at p (n <= VF_W; the others +0): a whole vector's unaligned load, or a row's last lanes */
VF_INLINE vfloat vf_load_upto(const float *p, int n) { return n == VF_W ? vf_loadu(p) : vf_loadn(p, n); }

/* A row that starts anywhere in a cache line, read a vector at a time: vf_pairs_next(&r, i, &a, &b) gives elements
 * [i, i + VF_W) and [i + 1, i + 1 + VF_W) of the row, for i = 0, VF_W, 2 VF_W, ... in turn (whole vectors only:
 * i + VF_W <= the row's length - 1). With AVX-512 they come from the aligned vectors around them, two lane permutes
 * instead of two loads that each cross a cache line (the x-faces' rows of n0 + 1 floats); those loads read the
 * whole lines that hold the row's first and last elements, within an array made of whole 64-byte lines (the
 * simulation's are). Elsewhere, two unaligned loads. */
#ifndef VF_HAVE_PAIRS
typedef struct vf_pairs {
    const float *row;
} vf_pairs;
VF_INLINE vf_pairs vf_pairs_of(const float *row) {
    vf_pairs r = {row};
    return r;
}
VF_INLINE void vf_pairs_next(vf_pairs *r, int i, vfloat *a, vfloat *b) {
    *a = vf_loadu(r->row + i);
    *b = vf_loadu(r->row + i + 1);
}
#endif

/* A row that starts `lead` elements into a cache line, written a line at a time (AVX-512 only: VF_HAVE_REALIGN).
 * Lane l of the line that holds elements t - lead .. t - lead + VF_W - 1 (t a multiple of VF_W) is element
 * t - lead + l, which in a row that starts on a line (a scratch row) is lane l - lead of the vector at t or lane
 * VF_W + l - lead of the vector before: vf_realign(the vector at t - VF_W, the vector at t, vf_realigner_of(lead)).
 * vf_store_lanes stores lanes [lo, hi) of an aligned vector (a row's first and last lines, which it shares with the
 * rows around it). */

#endif
