// The image format libraries from the system's packages: libpng (libpng-dev), libjpeg-turbo
// (libjpeg-dev), giflib (libgif-dev), libwebp (libwebp-dev), libheif (libheif-dev: HEIC with
// libde265, AVIF with dav1d/aom) and libtiff (libtiff-dev). Used from C only, by
// Sources/CStackScopeImages (libpng and libjpeg report errors with longjmp, which Swift cannot).
#ifndef CIMAGECODECS_SHIM_H
#define CIMAGECODECS_SHIM_H
#include <stdio.h>
#include <png.h>
#include <jpeglib.h>
#include <jerror.h>
#include <gif_lib.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <libheif/heif.h>
#include <tiffio.h>
#endif
