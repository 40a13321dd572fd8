#!/usr/bin/env python3
"""Regenerates the seed corpora in tests/fuzz/corpus/ from the repository's
fixtures (python3's standard library only). Run from anywhere:

    python3 tests/fuzz/make_seeds.py

config_json_fuzzer    NV-Generate configs: the fixture config_network_rflow.json,
                      a minified copy, a ddpm-ct variant without controlnet, the
                      other two JSON files of the fixture folder, and the
                      reference/cycle shapes of maisi_network_config_test.cpp.
nifti_extension_fuzzer  first byte = mode (0 .nii, 1 harness gzips, 2 raw gzip
                      stream, 3 provenance text only), then the payload: small
                      NIfTI-1 files carrying the provenance comment of
                      tests/app/fixtures/ldm/output/image_seed42_rank0.nii.gz
                      (voxels cut to 4x4x4), without extensions, with two
                      extensions, byte-swapped, and a NIfTI-2 file.
pickle_fuzzer         the data.pkl records of tests/engine/weights/data/torch_save/*.pt
                      (zip, stored) and the whole legacy_medicalnet.pt stream.
"""
import gzip
import json
import pathlib
import shutil
import struct
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fuzz" / "corpus"


def reset(name):
    d = OUT / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    return d


# --- config_json_fuzzer

def config_seeds():
    d = reset("config_json_fuzzer")
    src = ROOT / "tests/engine/diffusion/data/maisi_folder/configs"
    rflow_text = (src / "config_network_rflow.json").read_text()
    (d / "config_network_rflow.json").write_text(rflow_text)
    rflow = json.loads(rflow_text)
    (d / "config_network_rflow_min.json").write_text(json.dumps(rflow, separators=(",", ":")))
    ddpm = json.loads(rflow_text)
    del ddpm["controlnet_def"]
    ddpm["include_body_region"] = True
    ddpm["autoencoder_def"]["num_res_blocks"] = 1
    ddpm["autoencoder_def"]["include_fc"] = False
    ddpm["diffusion_unet_def"]["num_head_channels"] = 8
    ddpm["noise_scheduler"] = {
        "_target_": "monai.networks.schedulers.ddpm.DDPMScheduler",
        "num_train_timesteps": 1000, "beta_start": 0.0015, "beta_end": 0.0195,
        "schedule": "scaled_linear_beta", "clip_sample": False, "prediction_type": "epsilon"}
    (d / "config_network_ddpm.json").write_text(json.dumps(ddpm, separators=(",", ":")))
    for name in ("config_infer.json", "environment_rflow-ct.json"):
        shutil.copy(src / name, d / name)
    target = "monai.apps.generation.maisi.networks."
    refs = {
        "widths": [64, 128, 256], "a": "@b", "b": "$@a",
        "autoencoder_def": {"_target_": target + "autoencoderkl_maisi.AutoencoderKlMaisi", "num_channels": "@widths",
                            "num_res_blocks": "$@a"},
        "diffusion_unet_def": {"_target_": target + "diffusion_model_unet_maisi.DiffusionModelUNetMaisi"},
        "noise_scheduler": {"_target_": "monai.networks.schedulers.rectified_flow.RFlowScheduler"},
    }
    (d / "references_cycle.json").write_text(json.dumps(refs, separators=(",", ":")))


# --- nifti_extension_fuzzer

def nifti1(dims, datatype, bitpix, extensions, data, swapped=False):
    """A single-file NIfTI-1 (n+1) with `extensions` [(ecode, bytes)]."""
    e = ">" if swapped else "<"
    h = bytearray(348)
    struct.pack_into(e + "i", h, 0, 348)
    full = [len(dims)] + list(dims) + [1] * (7 - len(dims))
    struct.pack_into(e + "8h", h, 40, *full)
    struct.pack_into(e + "hh", h, 70, datatype, bitpix)
    struct.pack_into(e + "8f", h, 76, 1.0, 1.0, 1.5, 2.0, 1.0, 1.0, 1.0, 1.0)
    struct.pack_into(e + "ff", h, 112, 1.0, 0.0)  # scl_slope, scl_inter
    struct.pack_into(e + "hh", h, 252, 1, 1)  # qform_code, sform_code
    struct.pack_into(e + "6f", h, 256, 0.0, 0.0, 0.0, -10.0, 20.0, 5.0)
    struct.pack_into(e + "12f", h, 280, 1, 0, 0, -10, 0, 1.5, 0, 20, 0, 0, 2.0, 5)
    h[344:348] = b"n+1\0"
    ext = b""
    for code, text in extensions:
        body = text + b"\0" * ((-(len(text) + 8)) % 16)
        ext += struct.pack(e + "ii", len(body) + 8, code) + body
    extender = bytes([1 if extensions else 0, 0, 0, 0])
    struct.pack_into(e + "f", h, 108, float(348 + 4 + len(ext)))
    return bytes(h) + extender + ext + data


def nifti2(dims, datatype, bitpix, data):
    h = bytearray(540)
    struct.pack_into("<i", h, 0, 540)
    h[4:12] = b"n+2\0\r\n\x1a\n"
    struct.pack_into("<hh", h, 12, datatype, bitpix)
    struct.pack_into("<8q", h, 16, len(dims), *dims, *([1] * (7 - len(dims))))
    struct.pack_into("<8d", h, 104, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    struct.pack_into("<q", h, 168, 544)
    struct.pack_into("<dd", h, 176, 1.0, 0.0)
    struct.pack_into("<ii", h, 344, 0, 0)
    return bytes(h) + b"\0\0\0\0" + data


def provenance_text():
    fixture = ROOT / "tests/app/fixtures/ldm/output/image_seed42_rank0.nii.gz"
    b = gzip.open(fixture).read()
    esize, ecode = struct.unpack_from("<ii", b, 352)
    assert b[348] == 1 and ecode == 6
    return b[360:352 + esize].rstrip(b"\0")


def nifti_seeds():
    d = reset("nifti_extension_fuzzer")
    prov = provenance_text()
    data = struct.pack("<64f", *[float(i) for i in range(64)])
    with_prov = nifti1((4, 4, 4), 16, 32, [(6, prov)], data)
    (d / "prov_plain").write_bytes(b"\0" + with_prov)
    (d / "prov_harness_gz").write_bytes(b"\1" + with_prov)
    (d / "prov_raw_gz").write_bytes(b"\2" + gzip.compress(with_prov, 9, mtime=0))
    (d / "prov_text").write_bytes(b"\3" + prov)
    (d / "no_ext_int16").write_bytes(b"\0" + nifti1((2, 2, 2), 4, 16, [], bytes(16)))
    two = nifti1((2, 2, 2), 2, 8, [(4, b"<afni/>"), (6, b'{"note":"not provenance"}')], bytes(8))
    (d / "two_ext_gz").write_bytes(b"\1" + two)
    swapped = nifti1((2, 2, 2), 16, 32, [(6, b'{"medsynth_provenance":{}}')], struct.pack(">8f", *range(8)), True)
    (d / "swapped_ext").write_bytes(b"\0" + swapped)
    (d / "nifti2").write_bytes(b"\0" + nifti2((2, 2, 2), 4, 16, bytes(16)))


# --- pickle_fuzzer

def pickle_seeds():
    d = reset("pickle_fuzzer")
    seen = set()
    for pt in sorted((ROOT / "tests/engine/weights/data/torch_save").glob("*.pt")):
        if pt.stem == "big_endian":
            continue  # its data.pkl is plain_state_dict's; only its byteorder record differs
        if zipfile.is_zipfile(pt):
            with zipfile.ZipFile(pt) as z:
                for info in z.infolist():
                    record = z.read(info)
                    if info.filename.endswith("data.pkl") and record not in seen:
                        seen.add(record)
                        (d / (pt.stem + ".pkl")).write_bytes(record)
        else:
            (d / (pt.stem + ".legacy")).write_bytes(pt.read_bytes())


if __name__ == "__main__":
    config_seeds()
    nifti_seeds()
    pickle_seeds()
    for sub in sorted(OUT.iterdir()):
        files = sorted(sub.iterdir())
        print(f"{sub.name}: {len(files)} seeds, {sum(f.stat().st_size for f in files)} bytes")
