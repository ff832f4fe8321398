//go:build !race

package testenv

const raceDetector = false
