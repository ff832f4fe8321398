package hensachi

import (
	"errors"
	"fmt"
	"time"
)

// Error codes: stable snake_case identifiers that clients can branch on. The HTTP layer maps each
// to a status in one place (serve/problem.go).
const (
	EInvalidParameter   = "invalid_parameter"
	EMissingFile        = "missing_file"
	EInvalidImage       = "invalid_image"
	EMissingAPIKey      = "missing_api_key"
	EInvalidAPIKey      = "invalid_api_key"
	ERevokedAPIKey      = "revoked_api_key"
	EOriginNotAllowed   = "origin_not_allowed"
	ENotFound           = "not_found"
	EMethodNotAllowed   = "method_not_allowed"
	EFileTooLarge       = "file_too_large"
	EUnsupportedMedia   = "unsupported_media_type"
	EDailyLimitExceeded = "daily_limit_exceeded"
	EOverloaded         = "overloaded"
	EUnavailable        = "unavailable"
	EConflict           = "conflict"
	ERequestTimeout     = "request_timeout"
	EInternal           = "internal_error"
)

// Error is a failure a client or operator is meant to see: its message is safe to show.
type Error struct {
	Code    string
	Message string
	Param   string // the one parameter at fault, if any
	// RetryAfter, when set, is how long the client should wait before trying again (429, 503).
	RetryAfter time.Duration
	// Cause is what went wrong underneath, for the log; its text is never shown to the client.
	Cause error
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Cause }

// RetryIn sets how long the client should wait before trying again and returns e.
func (e *Error) RetryIn(after time.Duration) *Error {
	e.RetryAfter = after
	return e
}

// Errorf returns an Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ParamError reports an invalid parameter.
func ParamError(param, format string, args ...any) *Error {
	return &Error{Code: EInvalidParameter, Message: fmt.Sprintf(format, args...), Param: param}
}

// ErrorCode returns the code of the first Error in err's chain, EInternal for any other error,
// and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}
