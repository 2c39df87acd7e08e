package website

import (
	"html"
	"net/http"
	"strconv"
)

// Field is one line of an error page's list beyond the code and message,
// such as Key or BucketName.
type Field struct {
	Name, Value string
}

// ErrorPage is the HTML page a website endpoint answers an error with, in
// the form of S3's: the status as title and heading, then a list of the
// error code, its message, the extra fields and the request id.
func ErrorPage(status int, code, message string, extra []Field, requestID string) []byte {
	title := strconv.Itoa(status) + " " + http.StatusText(status)
	b := make([]byte, 0, 512)
	b = append(b, "<html>\n<head><title>"...)
	b = append(b, title...)
	b = append(b, "</title></head>\n<body>\n<h1>"...)
	b = append(b, title...)
	b = append(b, "</h1>\n<ul>\n"...)
	li := func(name, value string) {
		b = append(b, "<li>"...)
		b = append(b, name...)
		b = append(b, ": "...)
		b = append(b, html.EscapeString(value)...)
		b = append(b, "</li>\n"...)
	}
	li("Code", code)
	li("Message", message)
	for _, f := range extra {
		li(html.EscapeString(f.Name), f.Value)
	}
	li("RequestId", requestID)
	li("HostId", requestID)
	b = append(b, "</ul>\n<hr/>\n</body>\n</html>\n"...)
	return b
}
