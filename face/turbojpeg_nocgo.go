//go:build !cgo

package face

import "errors"

// Without cgo there is no libjpeg-turbo: JPEGs are decoded by image/jpeg at full resolution.

func openTurboJPEG(string) ([]scaleFactor, error) {
	return nil, errors.New("built without cgo")
}

func turboDecode([]byte, int, int, scaleFactor) (*RGB, error) {
	return nil, errors.New("built without cgo")
}
