// A hint to the processor to start loading a cache line the caller will read soon (no effect on
// what the program computes): Swift has no spelling for it.
static inline void waymark_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }
