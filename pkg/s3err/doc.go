// Package s3err owns the S3 error vocabulary of ObjectGateway: every error
// code the gateway can answer, its HTTP status and its default message, in one
// table, and the one function that maps operating-system errors onto it.
//
// Layers below the HTTP API return *Error values (or plain errors, which
// render as InternalError); the api package renders them as S3 XML in exactly
// one place. The zero Code is InternalError, so an unset code never turns
// into a success or a client error by accident.
package s3err
