#!/usr/bin/env bash
# Builds the small OpenCV the bundle carries: the cv2 Python module with only the core, imgproc and imgcodecs
# modules (PNG and JPEG), from the source of the opencv-python-headless release installed in .venv. The PyPI wheel
# brings 150 MB (ffmpeg's codecs, OpenBLAS, every module); deskpilot and rapidocr use none of that, and this build is
# about 19 MB. Cached: a second run with the same version does nothing. Called by installers/build.sh; prints the
# folder that holds the built `cv2` package.
set -euo pipefail
cd "$(dirname "$0")/.."
python="$PWD/.venv/bin/python"
version=$("$python" -c "import importlib.metadata as m; print(m.version('opencv-python-headless'))")
work="build/opencv/$version"
if [[ -f "$work/python/cv2/__init__.py" ]]; then
  echo "$work/python"
  exit 0
fi

read -r include library < <("$python" -c "import sysconfig as s; v = s.get_config_var; \
print(s.get_paths()['include'], f\"{v('LIBDIR')}/{v('LDLIBRARY')}\")")
tools=(cmake ninja-build g++)
[[ -f "$include/Python.h" ]] || tools+=(python3-dev)  # the headers the cv2 module compiles against
source installers/apt_missing.sh
apt_missing "${tools[@]}"

mkdir -p "$work"
# The source release, found through PyPI's JSON simple index and checked against the hash PyPI publishes (kept
# until the build succeeds, so an interrupted build goes on where it stopped).
if [[ ! -d "$work/src/opencv" ]]; then
  "$python" - "$version" "$work/source.tar.gz" <<'PY'
import hashlib
import json
import sys
import urllib.request

version, target = sys.argv[1], sys.argv[2]
request = urllib.request.Request("https://pypi.org/simple/opencv-python-headless/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
with urllib.request.urlopen(request, timeout=60) as response:
    files = json.load(response)["files"]
wanted = [f for f in files if f["filename"].endswith(f"-{version}.tar.gz")]
if not wanted:
    sys.exit(f"no source release of opencv-python-headless {version} on PyPI")
with urllib.request.urlopen(wanted[0]["url"], timeout=600) as response, open(target, "wb") as out:
    digest = hashlib.sha256()
    while chunk := response.read(1 << 20):
        digest.update(chunk)
        out.write(chunk)
if digest.hexdigest() != wanted[0]["hashes"]["sha256"]:
    sys.exit(f"{wanted[0]['filename']}: sha256 does not match PyPI's")
PY
  mkdir -p "$work/src.partial"
  tar -xzf "$work/source.tar.gz" -C "$work/src.partial" --strip-components=1
  mv "$work/src.partial" "$work/src"
fi

numpy_include=$("$python" -c "import numpy; print(numpy.get_include())")
# Everything that pulls in code deskpilot does not call is off: video I/O (ffmpeg), GUI, OpenCL, LAPACK/OpenBLAS,
# image formats other than PNG and JPEG, and anything that would download at configure time (IPP, ADE, fonts).
cmake -S "$work/src/opencv" -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_LIST=core,imgproc,imgcodecs,python3,python_bindings_generator -DBUILD_SHARED_LIBS=OFF \
  -DPYTHON3_EXECUTABLE="$python" -DPYTHON_DEFAULT_EXECUTABLE="$python" -DPYTHON3_LIMITED_API=ON \
  -DPYTHON3_INCLUDE_DIR="$include" -DPYTHON3_LIBRARY="$library" -DPYTHON3_NUMPY_INCLUDE_DIRS="$numpy_include" \
  -DBUILD_opencv_python2=OFF -DOPENCV_PYTHON3_INSTALL_PATH=python -DCMAKE_INSTALL_PREFIX="$PWD/$work/install" \
  -DWITH_IPP=OFF -DWITH_ITT=OFF -DWITH_OPENCL=OFF -DWITH_LAPACK=OFF -DWITH_EIGEN=OFF -DWITH_FFMPEG=OFF \
  -DWITH_GSTREAMER=OFF -DWITH_V4L=OFF -DWITH_GTK=OFF -DWITH_QT=OFF -DWITH_TIFF=OFF -DWITH_WEBP=OFF \
  -DWITH_OPENJPEG=OFF -DWITH_JASPER=OFF -DWITH_OPENEXR=OFF -DWITH_AVIF=OFF -DWITH_IMGCODEC_HDR=OFF \
  -DWITH_IMGCODEC_SUNRASTER=OFF -DWITH_IMGCODEC_PXM=OFF -DWITH_IMGCODEC_PFM=OFF -DWITH_PROTOBUF=OFF -DWITH_ADE=OFF \
  -DWITH_OBSENSOR=OFF -DWITH_VA=OFF -DWITH_VA_INTEL=OFF -DWITH_1394=OFF -DWITH_OPENVX=OFF -DWITH_FLATBUFFERS=OFF \
  -DWITH_UNIFONT=OFF -DWITH_KLEIDICV=OFF -DWITH_FASTCV=OFF -DWITH_SPNG=OFF -DWITH_PNG=ON -DBUILD_PNG=ON -DWITH_JPEG=ON \
  -DBUILD_JPEG=ON -DBUILD_ZLIB=ON -DBUILD_TESTS=OFF -DBUILD_PERF_TESTS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_DOCS=OFF \
  -DBUILD_opencv_apps=OFF -DBUILD_JAVA=OFF -DOPENCV_GENERATE_PKGCONFIG=OFF -DENABLE_PRECOMPILED_HEADERS=OFF \
  -DOPENCV_DOWNLOAD_PATH="$PWD/$work/downloads" >"$work/configure.log" 2>&1 \
  || { tail -20 "$work/configure.log" >&2; exit 1; }
echo "building OpenCV $version (core, imgproc, imgcodecs; about 10 minutes on 2 cores, once)" >&2
ninja -C "$work/cmake" install >"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; exit 1; }
if [[ ! -d "$work/install/python/cv2" ]]; then
  echo "OpenCV built without its Python module (see $work/configure.log, 'Python 3')" >&2
  exit 1
fi
mv "$work/install/python" "$work/python"
strip --strip-unneeded "$work"/python/cv2/python-3*/cv2*.so
rm -rf "$work/install" "$work/src" "$work/cmake" "$work/downloads" "$work/source.tar.gz"
echo "$work/python"
