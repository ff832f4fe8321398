package face

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// The few TurboJPEG prototypes used here, as libturbojpeg.so.0 exports them (stable since
// libjpeg-turbo 1.4): declared here rather than taken from turbojpeg.h, so that the build needs no
// development package and a machine without the library still builds and runs.
typedef void *tjhandle;
typedef struct { int num; int denom; } tjscalingfactor;

static tjhandle (*tj_init_decompress)(void);
static int (*tj_decompress_header3)(tjhandle, const unsigned char *, unsigned long, int *, int *, int *, int *);
static int (*tj_decompress2)(tjhandle, const unsigned char *, unsigned long, unsigned char *, int, int, int, int, int);
static tjscalingfactor *(*tj_get_scaling_factors)(int *);
static char *(*tj_get_error_str2)(tjhandle);
static int (*tj_get_error_code)(tjhandle);
static int (*tj_destroy)(tjhandle);

// tj_open loads the library and its functions; it returns NULL or what went wrong. The functions
// are set only once all of them are found, so a failed call leaves a loaded library working.
static const char *tj_open(const char *path) {
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		return dlerror();
	}
	void *f[7];
	const char *names[7] = {"tjInitDecompress", "tjDecompressHeader3", "tjDecompress2",
		"tjGetScalingFactors", "tjGetErrorStr2", "tjGetErrorCode", "tjDestroy"};
	for (int i = 0; i < 7; i++) {
		if ((f[i] = dlsym(lib, names[i])) == NULL) {
			dlclose(lib);
			return "a TurboJPEG function is missing (tjInitDecompress, tjDecompressHeader3, tjDecompress2, tjGetScalingFactors, tjGetErrorStr2, tjGetErrorCode or tjDestroy)";
		}
	}
	*(void **)&tj_init_decompress = f[0];
	*(void **)&tj_decompress_header3 = f[1];
	*(void **)&tj_decompress2 = f[2];
	*(void **)&tj_get_scaling_factors = f[3];
	*(void **)&tj_get_error_str2 = f[4];
	*(void **)&tj_get_error_code = f[5];
	*(void **)&tj_destroy = f[6];
	return NULL;
}

static tjscalingfactor *tj_scaling_factors(int *n) { return tj_get_scaling_factors(n); }

// tj_decode decodes a JPEG into packed RGB of exactly w×h pixels, a size the caller computed from
// the header and one of the library's scaling factors. It returns 0, or -1 with the library's
// message in msg and in *fatal whether the error was fatal (not a warning). The width and height
// read from the header are compared first, so a file whose header libjpeg-turbo reads otherwise
// than the guard that sized the buffer is never decoded into it.
static int tj_decode(const unsigned char *jpeg, unsigned long size, int fullW, int fullH,
                     unsigned char *dst, int w, int h, int flags, char *msg, int msgLen, int *fatal) {
	tjhandle tj = tj_init_decompress();
	if (tj == NULL) {
		strncpy(msg, "tjInitDecompress failed", msgLen - 1);
		*fatal = 1;
		return -1;
	}
	int hw = 0, hh = 0, subsamp = 0, colorspace = 0;
	int rc = tj_decompress_header3(tj, jpeg, size, &hw, &hh, &subsamp, &colorspace);
	if (rc == 0 && (hw != fullW || hh != fullH)) {
		strncpy(msg, "the header's size differs from the one checked", msgLen - 1);
		*fatal = 1;
		tj_destroy(tj);
		return -1;
	}
	if (rc == 0) {
		rc = tj_decompress2(tj, jpeg, size, dst, w, 3 * w, h, 0, flags); // 0 is TJPF_RGB
	}
	if (rc != 0) {
		strncpy(msg, tj_get_error_str2(tj), msgLen - 1);
		*fatal = tj_get_error_code(tj) != 0; // 0: TJERR_WARNING
	}
	tj_destroy(tj);
	return rc;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"
)

// TurboJPEG flags (turbojpeg.h).
const (
	// tjStopOnWarning makes a damaged file (a truncated scan, corrupt entropy data) an error instead
	// of a half-grey image: such a file goes to image/jpeg, whose verdict the service has always given.
	tjStopOnWarning = 8192
	// tjLimitScans refuses progressive files with an unreasonable number of scans, a known way to
	// make a small file take minutes to decode.
	tjLimitScans = 32768
)

// errTooCostly marks a file libjpeg-turbo refused for its cost (tjLimitScans), not as damaged:
// it is not handed to image/jpeg, which has no such limit. Inspect's own budget (jpegscan.go) is
// lower, so this is the second line.
var errTooCostly = errors.New("refused for its decoding cost")

// openTurboJPEG loads the library at path and returns its scaling factors.
func openTurboJPEG(path string) ([]scaleFactor, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if msg := C.tj_open(cpath); msg != nil {
		return nil, errors.New(C.GoString(msg))
	}
	var n C.int
	list := C.tj_scaling_factors(&n)
	if list == nil || n <= 0 {
		return nil, errors.New("tjGetScalingFactors returned no factors")
	}
	var factors []scaleFactor
	for _, f := range unsafe.Slice(list, int(n)) {
		factors = append(factors, scaleFactor{num: int(f.num), denom: int(f.denom)})
	}
	return factors, nil
}

// turboDecode decodes a JPEG whose header says fullW×fullH into packed RGB at the scaling factor f.
// The error says whether libjpeg-turbo found the file damaged (a warning) or failed outright; the
// caller gives either to image/jpeg for the service's own verdict.
func turboDecode(data []byte, fullW, fullH int, f scaleFactor) (*RGB, error) {
	if len(data) == 0 {
		return nil, errors.New("empty file")
	}
	w, h := f.scaled(fullW), f.scaled(fullH)
	out := &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	var msg [200]C.char
	var fatal C.int
	rc := C.tj_decode((*C.uchar)(unsafe.Pointer(&data[0])), C.ulong(len(data)), C.int(fullW), C.int(fullH),
		(*C.uchar)(unsafe.Pointer(&out.Pix[0])), C.int(w), C.int(h), tjStopOnWarning|tjLimitScans,
		&msg[0], C.int(len(msg)), &fatal)
	if rc != 0 {
		kind := "warning"
		if fatal != 0 {
			kind = "error"
		}
		text := C.GoString(&msg[0])
		if strings.Contains(text, "more than") && strings.Contains(text, "scans") { // "Progressive JPEG image has more than 500 scans"
			return nil, fmt.Errorf("libjpeg-turbo %s: %s: %w", kind, text, errTooCostly)
		}
		return nil, fmt.Errorf("libjpeg-turbo %s: %s", kind, text)
	}
	return out, nil
}
