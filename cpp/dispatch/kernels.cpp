#include "dispatch/kernels.h"

#include <atomic>
#include <stdexcept>

#include "common/target.h"
#include "dispatch/cpu.h"

namespace tagpipe::kernels {
namespace {

bool always() { return true; }

std::atomic<const Kernel*> g_active{nullptr};

std::string names(const std::vector<const Kernel*>& ks) {
  std::string s;
  for (const Kernel* k : ks) s += (s.empty() ? "" : ", ") + std::string(k->name);
  return s;
}

}  // namespace

const std::vector<Kernel>& compiled() {
  static const std::vector<Kernel> ks = {
      {"scalar", always, scalar::classify, scalar::boundaries, scalar::window, scalar::replace_byte, scalar::marks, scalar::find_bytes, scalar::transcode, scalar::scan, scalar::cut_pieces},
#if TAGPIPE_X86_64
      {"sse42", [] { return cpu::features().sse42; }, sse42::classify, sse42::boundaries, sse42::window, sse42::replace_byte, sse42::marks, sse42::find_bytes, sse42::transcode, sse42::scan, sse42::cut_pieces},
      {"avx2", [] { return cpu::features().avx2; }, avx2::classify, avx2::boundaries, avx2::window,
       sse42::replace_byte, avx2::marks, avx2::find_bytes, sse42::transcode, avx2::scan, avx2::cut_pieces},
      {"avx512", [] { return cpu::features().avx512; }, avx512::classify, avx512::boundaries, avx512::window,
       sse42::replace_byte, avx512::marks, avx512::find_bytes, sse42::transcode, avx512::scan, avx512::cut_pieces},
#endif
#if TAGPIPE_AARCH64
      {"neon", [] { return cpu::features().neon; }, neon::classify, neon::boundaries, neon::window, neon::replace_byte, neon::marks, neon::find_bytes, neon::transcode, neon::scan, neon::cut_pieces},
#endif
  };
  return ks;
}

std::vector<const Kernel*> available() {
  std::vector<const Kernel*> out;
  for (const Kernel& k : compiled())
    if (k.supported()) out.push_back(&k);
  return out;
}

const Kernel* find(std::string_view name) {
  for (const Kernel& k : compiled())
    if (name == k.name) return &k;
  return nullptr;
}

const Kernel& active() {
  const Kernel* k = g_active.load(std::memory_order_acquire);
  if (!k) {
    k = available().back();
    g_active.store(k, std::memory_order_release);
  }
  return *k;
}

void set_active(std::string_view name) {
  const Kernel* k = find(name);
  if (!k)
    throw std::invalid_argument("unknown kernel '" + std::string(name) + "'; this build has: " +
                                names([] {
                                  std::vector<const Kernel*> all;
                                  for (const Kernel& c : compiled()) all.push_back(&c);
                                  return all;
                                }()));
  if (!k->supported())
    throw std::invalid_argument("kernel '" + std::string(name) + "' cannot run on this CPU; available: " +
                                names(available()));
  g_active.store(k, std::memory_order_release);
}

}  // namespace tagpipe::kernels
