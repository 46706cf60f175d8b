#include "dispatch/kernels.h"

#include <atomic>
#include <stdexcept>

#include "common/target.h"

// Each instruction set's Kernel, defined by cpp/arch/<isa>.cpp (only for its architecture).
namespace tagpipe {
namespace scalar {
extern const kernels::Kernel kKernel;
}
#if TAGPIPE_X86_64
namespace sse42 {
extern const kernels::Kernel kKernel;
}
namespace avx2 {
extern const kernels::Kernel kKernel;
}
namespace avx512 {
extern const kernels::Kernel kKernel;
}
#endif
#if TAGPIPE_AARCH64
namespace neon {
extern const kernels::Kernel kKernel;
}
#endif
}  // namespace tagpipe

namespace tagpipe::kernels {
namespace {

std::atomic<const Kernel*> g_active{nullptr};

std::string names(const std::vector<const Kernel*>& ks) {
  std::string s;
  for (const Kernel* k : ks) s += (s.empty() ? "" : ", ") + std::string(k->name);
  return s;
}

}  // namespace

const std::vector<Kernel>& compiled() {
  static const std::vector<Kernel> ks = {
    scalar::kKernel,
#if TAGPIPE_X86_64
    sse42::kKernel,
    avx2::kKernel,
    avx512::kKernel,
#endif
#if TAGPIPE_AARCH64
    neon::kKernel,
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
  if (!k) {
    std::vector<const Kernel*> all;
    for (const Kernel& c : compiled()) all.push_back(&c);
    throw std::invalid_argument("unknown kernel '" + std::string(name) + "'; this build has: " + names(all));
  }
  if (!k->supported())
    throw std::invalid_argument("kernel '" + std::string(name) +
                                "' cannot run on this CPU; available: " + names(available()));
  g_active.store(k, std::memory_order_release);
}

}  // namespace tagpipe::kernels
