#!/usr/bin/env python3
"""Writes the torch.save fixtures read by torch_archive_test.cpp into torch_save/.

Every tensor value is arange-based and exact in its dtype, so the C++ test
recomputes the expected values and needs no second file:
    tensor i of a state dict = (arange(numel) + 100 * i) * 0.25, reshaped.

Fixtures:
  plain_state_dict.pt     state dict of Sequential(Conv3d(1, 2, 3), GroupNorm(1, 2))
  nv_generate.pt          {'unet_state_dict': sd, 'scale_factor': tensor(0.9), 'epoch': 3,
                           'num_train_timesteps': 1000, 'loss': 0.125, 'betas': (0.9, 0.999)}
  dtypes.pt               fp16, bf16, int64, int32, uint8, bool and float64 tensors
  views.pt                four tensors sharing one storage (offset, transposed, strided column)
  legacy_medicalnet.pt    {'state_dict': DataParallel(model).state_dict()} in the pre-1.6 format
  hostile_os_system.pt    a zip whose data.pkl calls os.system('touch /tmp/medsynth_torch_archive_pwned')
  storage_too_small.pt    a tensor of 100 elements over a storage of 4
  negative_stride.pt      a tensor with stride -1
  big_endian.pt           plain_state_dict.pt with its byteorder record saying 'big'
  containers_protocol2.pt a Parameter, torch.Size, torch.device, bytes, None, bool, nested
  containers_protocol5.pt list/tuple, an int-keyed optimizer state; pickle protocols 2 and 5

Run from this folder with torch installed (made with torch 2.15.0):
    /work/venv-monai/bin/python make_torch_save_fixtures.py
Nothing here is ever loaded by Python with weights_only=False.
"""
import collections
import io
import os
import pickle
import zipfile

import torch

OUT = "torch_save"
PWNED = "/tmp/medsynth_torch_archive_pwned"


def arange_like(t, index):
    values = (torch.arange(t.numel(), dtype=torch.float64) + 100 * index) * 0.25
    return values.reshape(t.shape).to(t.dtype)


def tiny_model():
    model = torch.nn.Sequential(torch.nn.Conv3d(1, 2, 3), torch.nn.GroupNorm(1, 2))
    with torch.no_grad():
        for i, p in enumerate(model.state_dict().values()):
            p.copy_(arange_like(p, i))
    return model


def rewrite_zip(src, dst, replace):
    """Copies a zip, replacing the records whose names end with a key of `replace`."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            for suffix, new in replace.items():
                if info.filename.endswith(suffix):
                    data = new
            zout.writestr(info.filename, data)


def write_crafted_zip(path, pickle_bytes, storages):
    """A zip laid out like torch.save's, with a hand-made data.pkl."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pickle_bytes)
        z.writestr("archive/byteorder", b"little")
        for key, data in storages.items():
            z.writestr(f"archive/data/{key}", data)
        z.writestr("archive/version", b"3\n")


class FakeStorage:
    def __init__(self, key, numel):
        self.key, self.numel = key, numel


class FakeTensor:
    """Pickles as torch's own tensors do, with any size/stride/offset."""

    def __init__(self, storage, offset, size, stride):
        self.args = (storage, offset, size, stride, False, collections.OrderedDict())

    def __reduce__(self):
        return (torch._utils._rebuild_tensor_v2, self.args)


class CraftPickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, FakeStorage):
            return ("storage", torch.FloatStorage, obj.key, "cpu", obj.numel)
        return None


def crafted_tensor_file(path, numel, size, stride, offset=0):
    buf = io.BytesIO()
    tensor = FakeTensor(FakeStorage("0", numel), offset, size, stride)
    CraftPickler(buf, protocol=2).dump({"weight": tensor})
    data = torch.arange(numel, dtype=torch.float32).numpy().tobytes()
    write_crafted_zip(path, buf.getvalue(), {"0": data})


def containers():
    return {"weight": torch.nn.Parameter(torch.arange(3, dtype=torch.float32)),
            "size": torch.Size([2, 3]), "device": torch.device("cuda", 1), "blob": b"\x00\xffab",
            "none": None, "flag": True, "nested": [1, (2.5, "x"), -70000, 2**40],
            "optimizer": {"state": {0: {"step": torch.tensor(3.0)}}}}


def hostile_pickle():
    # Written by hand: pickling os.system itself would name it 'posix.system'.
    command = f"touch {PWNED}".encode()
    return (b"\x80\x02" + b"}q\x00X\x0a\x00\x00\x00state_dict" + b"cos\nsystem\n"
            + b"X" + len(command).to_bytes(4, "little") + command + b"\x85R" + b"s.")


def main():
    os.makedirs(OUT, exist_ok=True)
    sd = tiny_model().state_dict()
    torch.save(sd, f"{OUT}/plain_state_dict.pt")
    torch.save({"unet_state_dict": sd, "scale_factor": torch.tensor(0.9), "epoch": 3,
                "num_train_timesteps": 1000, "loss": 0.125, "betas": (0.9, 0.999)},
               f"{OUT}/nv_generate.pt")
    torch.save({"half": torch.arange(6, dtype=torch.float16).reshape(2, 3) * 0.5,
                "bf16": torch.arange(5, dtype=torch.bfloat16) - 2,
                "long": torch.arange(4, dtype=torch.int64) - 2,
                "int": torch.arange(3, dtype=torch.int32) * 7,
                "byte": torch.arange(4, dtype=torch.uint8) + 250,
                "bool": torch.tensor([True, False, True]),
                "double": torch.arange(3, dtype=torch.float64) / 3},
               f"{OUT}/dtypes.pt")
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    torch.save({"base": base, "tail": base[1:], "transposed": base.t(), "column": base[:, 2]},
               f"{OUT}/views.pt")
    for protocol in (2, 5):
        torch.save(containers(), f"{OUT}/containers_protocol{protocol}.pt", pickle_protocol=protocol)
    legacy = torch.nn.DataParallel(tiny_model()).state_dict()
    torch.save({"state_dict": legacy}, f"{OUT}/legacy_medicalnet.pt", _use_new_zipfile_serialization=False)
    write_crafted_zip(f"{OUT}/hostile_os_system.pt", hostile_pickle(), {})
    crafted_tensor_file(f"{OUT}/storage_too_small.pt", numel=4, size=(100,), stride=(1,))
    crafted_tensor_file(f"{OUT}/negative_stride.pt", numel=4, size=(4,), stride=(-1,), offset=3)
    rewrite_zip(f"{OUT}/plain_state_dict.pt", f"{OUT}/big_endian.pt", {"/byteorder": b"big"})
    check()


def check():
    """The fixtures are what they claim: torch's own safe loader agrees."""
    sd = torch.load(f"{OUT}/legacy_medicalnet.pt", weights_only=True)["state_dict"]
    assert all(k.startswith("module.") for k in sd)
    try:
        torch.load(f"{OUT}/hostile_os_system.pt", weights_only=True)
        raise SystemExit("hostile fixture was accepted")
    except pickle.UnpicklingError:
        pass
    assert not os.path.exists(PWNED)


if __name__ == "__main__":
    main()
