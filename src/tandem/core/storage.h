// A reference-counted block of memory on a device. Views share one Storage.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace tandem {

enum class DeviceType : uint8_t { CPU };

class Storage {
 public:
  // Allocates nbytes from the caching allocator.
  static std::shared_ptr<Storage> allocate(size_t nbytes, DeviceType device = DeviceType::CPU);
  // Wraps memory owned elsewhere (a numpy array); `owner` keeps it alive.
  static std::shared_ptr<Storage> borrow(void* data, size_t nbytes, std::shared_ptr<void> owner);
  struct Private {};  // lets make_shared construct one (a single allocation) from inside
  explicit Storage(Private);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  // Bumped by every in-place write through any view, so autodiff can tell when a tensor it
  // saved for backward was modified afterwards.
  uint64_t version() const { return version_; }
  void bump_version() { ++version_; }
  size_t nbytes() const { return nbytes_; }
  DeviceType device() const { return device_; }
  // Creation order of storages (a process-wide count): jit tells the state it captures
  // from tensors its traced code made.
  uint64_t serial() const { return serial_; }
  // The serial the next storage will get.
  static uint64_t next_serial();

 private:
  void* data_ = nullptr;
  size_t nbytes_ = 0;
  DeviceType device_ = DeviceType::CPU;
  std::shared_ptr<void> owner_;  // keeps borrowed memory alive
  // Borrowed memory is never returned to the allocator, whatever owner_ holds (a
  // shared_ptr with a custom deleter may hold a null pointer and still own something).
  bool borrowed_ = false;
  uint64_t version_ = 0;
  uint64_t serial_ = 0;
};

}  // namespace tandem
