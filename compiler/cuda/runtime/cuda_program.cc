#include "compiler/cuda/runtime/cuda_program.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "absl/strings/str_cat.h"

namespace rk::compiler::cuda {
namespace {

// Seeded from the clock so runs differ across processes too (as on the CPU).
int64_t NextRunCounter() {
  static std::atomic<int64_t> counter{
      std::chrono::steady_clock::now().time_since_epoch().count() % 1000 + 1};
  return counter.fetch_add(1) % 997 + 1;
}

uint32_t GridFor(const KernelLaunch& launch, const DeviceInfo& info) {
  if (launch.grid[0] != 0) return launch.grid[0];
  const int64_t sms = std::max(info.sm_count, 1);
  const int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  const int64_t resident = sms * std::max<int64_t>(2048 / threads, 1);
  int64_t blocks = launch.form == KernelForm::kRowReduction
                       ? std::min<int64_t>(launch.work, resident * 4)
                       : std::min<int64_t>((launch.work + threads - 1) / threads, resident);
  return static_cast<uint32_t>(std::max<int64_t>(blocks, 1));
}

}  // namespace

struct CudaProgram::DeviceState {
  std::vector<DeviceBuffer> owned;   // inputs, outputs and the arena
  std::vector<DevicePtr> pointers;   // per program buffer
  std::vector<int32_t> output_of;    // output index -> owned slot
};

absl::StatusOr<std::unique_ptr<CudaProgram>> CudaProgram::Load(const kernel::Program& program,
                                                              PtxProgram ptx, bool keep_cubin,
                                                              AssemblyPipeline* pipeline) {
  absl::StatusOr<CudaDevice*> device = CudaDevice::Get();
  if (!device.ok()) return device.status();
  std::unique_ptr<CudaProgram> p(new CudaProgram);
  p->program_ = &program;
  p->device_ = *device;
  p->ptx_ = std::move(ptx);
  // Each module's PTX to machine code, on several threads
  // (module_loader.h).
  std::vector<std::string>& texts = p->ptx_.modules;
  if (texts.empty()) texts.push_back(p->ptx_.ptx);
  if (keep_cubin && texts.size() != 1) {
    return absl::InternalError("cuda: keeping the cubin needs a program of one module");
  }
  const int n = static_cast<int>(texts.size());
  absl::StatusOr<std::vector<std::shared_ptr<CudaModule>>> modules =
      LoadModules(*p->device_, texts, keep_cubin, p->load_timings_, pipeline);
  if (!modules.ok()) return modules.status();
  p->modules_ = *std::move(modules);
  int64_t scratch_bytes = 0;
  for (const KernelLaunch& launch : p->ptx_.launches) {
    if (launch.module < 0 || launch.module >= n) {
      return absl::InternalError(absl::StrCat("cuda: ", launch.entry, " names module ",
                                              launch.module, " of ", n));
    }
    absl::StatusOr<void*> fn = p->modules_[launch.module]->Function(launch.entry);
    if (!fn.ok()) return fn.status();
    if (launch.dynamic_shared_bytes > 48 * 1024) {
      if (absl::Status s =
              p->device_->AllowDynamicShared(*fn, launch.dynamic_shared_bytes, launch.entry);
          !s.ok()) {
        return s;
      }
    }
    p->functions_.push_back(*fn);
    scratch_bytes = std::max(scratch_bytes, launch.scratch_bytes);
  }
  if (scratch_bytes > 0) {
    absl::StatusOr<DeviceBuffer> scratch = DeviceBuffer::Create(p->device_, scratch_bytes);
    if (!scratch.ok()) return scratch.status();
    p->scratch_ = *std::move(scratch);
  }
  for (const HostTensor& c : program.constants) {
    absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Create(p->device_, c.byte_size());
    if (!buffer.ok()) return buffer.status();
    if (absl::Status s = p->device_->CopyToDevice(buffer->ptr(), c.raw_data(), c.byte_size());
        !s.ok()) {
      return s;
    }
    p->constants_.push_back(*std::move(buffer));
  }
  return p;
}

absl::StatusOr<std::unique_ptr<CudaProgram::DeviceState>> CudaProgram::Prepare(
    absl::Span<const HostTensor> inputs) const {
  const kernel::Program& program = *program_;
  if (static_cast<int>(inputs.size()) != program.num_inputs) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", program.num_inputs, " inputs, got ", inputs.size()));
  }
  if (absl::Status s = device_->MakeCurrent(); !s.ok()) return s;
  auto state = std::make_unique<DeviceState>();
  state->pointers.assign(program.buffers.size(), 0);
  state->output_of.assign(program.num_output_buffers, -1);
  auto allocate = [&](size_t bytes) -> absl::StatusOr<DevicePtr> {
    absl::StatusOr<DeviceBuffer> b = DeviceBuffer::Create(device_, bytes);
    if (!b.ok()) return b.status();
    state->owned.push_back(*std::move(b));
    return state->owned.back().ptr();
  };
  DevicePtr arena = 0;
  if (program.arena_bytes > 0) {
    absl::StatusOr<DevicePtr> a = allocate(program.arena_bytes);
    if (!a.ok()) return a.status();
    arena = *a;
  }
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const kernel::Buffer& buffer = program.buffers[b];
    switch (buffer.role) {
      case kernel::BufferRole::kInput: {
        const HostTensor& in = inputs[buffer.external_index];
        if (in.byte_size() != buffer.type.byte_size()) {
          return absl::InvalidArgumentError(absl::StrCat("input ", buffer.external_index,
                                                         ": expected ", buffer.type.ToString()));
        }
        absl::StatusOr<DevicePtr> p = allocate(in.byte_size());
        if (!p.ok()) return p.status();
        if (absl::Status s = device_->CopyToDevice(*p, in.raw_data(), in.byte_size()); !s.ok()) {
          return s;
        }
        state->pointers[b] = *p;
        break;
      }
      case kernel::BufferRole::kConstant:
        state->pointers[b] = constants_[buffer.external_index].ptr();
        break;
      case kernel::BufferRole::kOutput: {
        absl::StatusOr<DevicePtr> p = allocate(buffer.type.byte_size());
        if (!p.ok()) return p.status();
        state->output_of[buffer.external_index] = static_cast<int32_t>(state->owned.size() - 1);
        state->pointers[b] = *p;
        break;
      }
      case kernel::BufferRole::kTemp: state->pointers[b] = arena + buffer.arena_offset; break;
      case kernel::BufferRole::kLocal: break;
    }
  }
  return state;
}

absl::Status CudaProgram::LaunchAll(const DeviceState& state, int64_t run_counter) const {
  for (size_t k = 0; k < ptx_.launches.size(); ++k) {
    const KernelLaunch& launch = ptx_.launches[k];
    if (launch.work <= 0 && launch.form != KernelForm::kMatmul) continue;
    std::vector<DevicePtr> args;
    args.reserve(launch.buffers.size());
    for (int32_t b : launch.buffers) args.push_back(state.pointers[b]);
    if (launch.scratch_bytes > 0) args.push_back(scratch_.ptr());
    std::vector<void*> params;
    for (DevicePtr& a : args) params.push_back(&a);
    int64_t counter = run_counter;
    params.push_back(&counter);
    // The wgmma matmul's TMA tensor maps, by value after the run counter.
    struct alignas(64) TensorMapBytes {
      uint8_t bytes[128];
    };
    std::vector<TensorMapBytes> maps(launch.tensor_maps.size());
    for (size_t i = 0; i < maps.size(); ++i) {
      const KernelLaunch::TensorMap& m = launch.tensor_maps[i];
      if (absl::Status s = device_->EncodeTensorMap(
              maps[i].bytes, m.bf16, state.pointers[m.buffer] + m.offset_bytes, m.dims,
              m.row_bytes, m.box);
          !s.ok()) {
        return s;
      }
      params.push_back(maps[i].bytes);
    }
    LaunchDims dims;
    dims.block = launch.block;
    dims.grid = launch.grid;
    dims.grid[0] = GridFor(launch, device_->info());
    dims.shared_bytes = launch.dynamic_shared_bytes;
    if (dims.grid[0] == 0 || dims.grid[1] == 0 || dims.grid[2] == 0) continue;
    if (absl::Status s = device_->Launch(functions_[k], dims, params.data(), launch.entry);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<HostTensor>> CudaProgram::Run(
    absl::Span<const HostTensor> inputs) const {
  const kernel::Program& program = *program_;
  absl::StatusOr<std::unique_ptr<DeviceState>> state = Prepare(inputs);
  if (!state.ok()) return state.status();
  {
    std::lock_guard<std::mutex> lock(scratch_mu_);
    if (absl::Status s = LaunchAll(**state, NextRunCounter()); !s.ok()) return s;
    std::string names;
    for (const KernelLaunch& l : ptx_.launches) {
      absl::StrAppend(&names, names.empty() ? "" : ",", l.entry);
    }
    if (absl::Status s = device_->Synchronize(absl::StrCat("kernels ", names)); !s.ok()) return s;
  }
  std::vector<HostTensor> outputs;
  for (int32_t b : program.outputs) {
    const kernel::Buffer& buffer = program.buffers[b];
    switch (buffer.role) {
      case kernel::BufferRole::kInput:
        outputs.push_back(inputs[buffer.external_index].Clone());
        break;
      case kernel::BufferRole::kConstant:
        outputs.push_back(program.constants[buffer.external_index].Clone());
        break;
      default: {
        HostTensor out = HostTensor::Uninitialized(buffer.type);
        const DeviceBuffer& src = (*state)->owned[(*state)->output_of[buffer.external_index]];
        if (absl::Status s = device_->CopyToHost(out.raw_data(), src.ptr(), out.byte_size());
            !s.ok()) {
          return s;
        }
        outputs.push_back(std::move(out));
      }
    }
  }
  return outputs;
}

absl::StatusOr<double> CudaProgram::TimeKernelsMs(absl::Span<const HostTensor> inputs,
                                                  int iterations) const {
  absl::StatusOr<std::unique_ptr<DeviceState>> state = Prepare(inputs);
  if (!state.ok()) return state.status();
  const int64_t counter = NextRunCounter();
  std::lock_guard<std::mutex> lock(scratch_mu_);
  absl::StatusOr<double> ms =
      device_->TimeMs([&] { return LaunchAll(**state, counter); }, iterations);
  if (absl::Status s = device_->Synchronize("timed kernels"); !s.ok()) return s;
  return ms;
}

absl::StatusOr<std::vector<double>> CudaProgram::TimeEachRunMs(
    absl::Span<const HostTensor> inputs, int warmup, int runs) const {
  absl::StatusOr<std::unique_ptr<DeviceState>> state = Prepare(inputs);
  if (!state.ok()) return state.status();
  const int64_t counter = NextRunCounter();
  std::lock_guard<std::mutex> lock(scratch_mu_);
  for (int i = 0; i < warmup; ++i) {
    if (absl::Status s = LaunchAll(**state, counter); !s.ok()) return s;
  }
  absl::StatusOr<std::vector<double>> ms =
      device_->TimeEachMs([&] { return LaunchAll(**state, counter); }, runs);
  if (absl::Status s = device_->Synchronize("timed kernels"); !s.ok()) return s;
  return ms;
}

}  // namespace rk::compiler::cuda
