package metadata

import "testing"

// TestBucketRecordWebsite checks that a bucket's website configuration
// survives the record's encoding, beside the other configurations.
func TestBucketRecordWebsite(t *testing.T) {
	b := Bucket{ID: 7, CORS: "<CORSConfiguration/>", Tags: "a=b",
		Website: `<WebsiteConfiguration><IndexDocument><Suffix>index.html</Suffix></IndexDocument></WebsiteConfiguration>`}
	data, err := b.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Bucket
	if err := got.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if got != b {
		t.Errorf("round trip: got %+v, want %+v", got, b)
	}
}
