package website

import (
	"strings"
	"testing"
)

// TestErrorPage checks the form of S3's website error pages, and that
// values are escaped.
func TestErrorPage(t *testing.T) {
	got := string(ErrorPage(404, "NoSuchKey", "The specified key does not exist.", []Field{{"Key", "<b>&"}}, "REQ1"))
	want := "<html>\n<head><title>404 Not Found</title></head>\n<body>\n<h1>404 Not Found</h1>\n<ul>\n" +
		"<li>Code: NoSuchKey</li>\n<li>Message: The specified key does not exist.</li>\n<li>Key: &lt;b&gt;&amp;</li>\n" +
		"<li>RequestId: REQ1</li>\n<li>HostId: REQ1</li>\n</ul>\n<hr/>\n</body>\n</html>\n"
	if got != want {
		t.Errorf("ErrorPage:\n%s\nwant\n%s", got, want)
	}
	if p := string(ErrorPage(403, "AccessDenied", "Access Denied", nil, "R")); !strings.Contains(p, "<title>403 Forbidden</title>") {
		t.Errorf("403 page: %s", p)
	}
}
