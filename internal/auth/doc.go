// Package auth is dynago's AWS Signature Version 4 authentication, as
// Amazon DynamoDB performs it: the checks, their order and DynamoDB's exact
// error messages (sources in SOURCES.md, next to this file).
//
// Two modes share one parser:
//
//   - Parse reads and checks the form of a request's credentials (the
//     Authorization header, or the X-Amz-* query parameters of a presigned
//     request). It is all `dynago serve` needs without --credentials, when
//     any well-formed credentials are accepted and the region comes from the
//     credential scope.
//   - Verifier.Verify also checks the clock, the credential scope, the
//     access key (from a credentials file: LoadKeys), the signature and the
//     session token, for `dynago serve --credentials FILE`.
//
// Every error a client can see is a *ddberr.Error with DynamoDB's code and
// text; the HTTP edge renders it. Credentials-file errors are *LoadError,
// naming the file and line.
//
// # Why the canonical request is computed here
//
// The project prefers a well-kept library to its own code, and the AWS SDK
// for Go v2's signer (github.com/aws/aws-sdk-go-v2/aws/signer/v4) is in
// go.mod. Verifying with it would mean rebuilding the client's request and
// signing it again with v4.Signer.SignHTTP, then comparing signatures. That
// cannot work in general, so the package builds the canonical request
// itself and uses the SDK signer as the oracle of its tests instead:
//
//   - The SDK signs every header present except its ignore list
//     (Authorization, User-Agent, X-Amzn-Trace-Id, Expect,
//     Transfer-Encoding) and always adds host, content-length (when the
//     length is positive) and X-Amz-Date. A verifier must sign exactly the
//     client's SignedHeaders list, and clients differ: the AWS SDK for Java
//     v1 signs user-agent, amz-sdk-invocation-id and amz-sdk-retry, which
//     DynamoDB accepts (its own error messages show them in the canonical
//     string: awslabs/dynamodb-cross-region-library#34,
//     amazon-archives/dynamodb-janusgraph-storage-backend#14); a client that
//     signs Date instead of X-Amz-Date would get an X-Amz-Date added.
//   - The SDK escapes the URL's path again but does not remove dot
//     segments or merge slashes, which AWS does for every service but S3
//     (the SigV4 test suite's *-normalized cases).
//   - SignHTTP clones the request and headers, builds several strings and
//     maps and derives the signing key through its cache on every call;
//     Verify runs on every request, and for a header-signed request it
//     allocates nothing once warm (BenchmarkVerify; a presigned request's
//     query string is decoded, sorted and re-encoded, which allocates).
//
// What is taken from libraries: SHA-256 and HMAC from the standard library
// (the signing key is derived with crypto/hmac once per access key, scope
// date and region, then applied as precomputed HMAC pads), URL decoding
// from net/url, HTTP dates from net/http. The SDK's internal ini parser
// (config/internal/ini) cannot be imported, and its public
// LoadSharedConfigProfile reads one named profile and cannot list them or
// report lines, so ReadKeys reimplements its line rules; the tests
// cross-check both the signatures (v4.Signer.SignHTTP and PresignHTTP) and
// the credentials (config.LoadSharedConfigProfile) against the SDK.
package auth
