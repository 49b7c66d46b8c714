#include "tandem/core/storage.h"

#include <atomic>

#include "tandem/core/allocator.h"

namespace tandem {

namespace {
std::atomic<uint64_t> serials{0};
}  // namespace

Storage::Storage(Private) : serial_(serials.fetch_add(1, std::memory_order_relaxed)) {}

uint64_t Storage::next_serial() {
  return serials.load(std::memory_order_relaxed);
}

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, DeviceType device) {
  auto s = std::make_shared<Storage>(Private{});
  s->data_ = cpu_allocate(nbytes);
  s->nbytes_ = nbytes;
  s->device_ = device;
  return s;
}

std::shared_ptr<Storage> Storage::borrow(void* data, size_t nbytes, std::shared_ptr<void> owner) {
  auto s = std::make_shared<Storage>(Private{});
  s->data_ = data;
  s->nbytes_ = nbytes;
  s->owner_ = std::move(owner);
  s->borrowed_ = true;
  return s;
}

Storage::~Storage() {
  if (!borrowed_) cpu_free(data_, nbytes_);
}

}  // namespace tandem
