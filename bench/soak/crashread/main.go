// Command crashread reproduces a dynago durability bug found by
// bench/soak, fixed since (storage/pebble, "Durable reads"): a read could
// return a write that was not yet durable, so a SIGKILL right after it
// lost a change that a reader had already seen. It stays as a check.
//
// It runs dynago serve on disk (--stream-shards 1), has -writers clients
// PutItem their own keys with an increasing counter n (each waits for its
// answer), while one reader follows the stream's only shard with
// GetRecords and another reads the keys with strongly consistent GetItem.
// After -before it sends SIGKILL, restarts the server on the same data
// directory and compares what the readers saw with what survived:
//
//   - every stream record served before the kill must be served again,
//     with the same sequence number and content, from TRIM_HORIZON;
//   - every value a consistent GetItem returned must still be there (or a
//     newer one): n never goes back.
//
// Usage: go run ./bench/soak/crashread -bin /path/to/dynago [-rounds 5]
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/dynago/dynago/internal/sdkhttp"
)

func main() {
	bin := flag.String("bin", "", "dynago binary (required)")
	writers := flag.Int("writers", 8, "concurrent writers")
	before := flag.Duration("before", 2*time.Second, "writing time before each SIGKILL")
	rounds := flag.Int("rounds", 5, "kill-and-restart rounds (stops at the first that shows the bug)")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "crashread: -bin is required")
		os.Exit(2)
	}
	os.Exit(run(*bin, *writers, *before, *rounds))
}

type server struct {
	bin, dir, addr string
	cmd            *exec.Cmd
}

func (s *server) start() error {
	s.cmd = exec.Command(s.bin, "serve", "--addr", s.addr, "--data-dir", s.dir, "--stream-shards", "1", "--log-level", "warn")
	s.cmd.Stderr = os.Stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	for i := 0; i < 600; i++ {
		if r, err := http.Get("http://" + s.addr + "/"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("server not ready")
}

func (s *server) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

const tbl = "crashread"

type seen struct{ key, n string }

func run(bin string, writers int, before time.Duration, rounds int) int {
	dir, err := os.MkdirTemp("", "crashread-")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer os.RemoveAll(dir)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	srv := &server{bin: bin, dir: filepath.Join(dir, "data"), addr: addr}
	defer srv.kill()
	if err := srv.start(); err != nil {
		fmt.Println(err)
		return 1
	}
	ctx := context.Background()
	cfg, _ := awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion("us-east-1"),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("x", "x", "")))
	hc := sdkhttp.NoWriteTo{Doer: &http.Client{Timeout: 10 * time.Second}}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint, o.HTTPClient, o.Retryer = aws.String("http://"+addr), hc, aws.NopRetryer{}
	})
	sc := dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) {
		o.BaseEndpoint, o.HTTPClient, o.Retryer = aws.String("http://"+addr), hc, aws.NopRetryer{}
	})
	out, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(tbl),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("k"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("k"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
	})
	if err != nil {
		fmt.Println("CreateTable:", err)
		return 1
	}
	arn := out.TableDescription.LatestStreamArn
	ds, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn})
	if err != nil || len(ds.StreamDescription.Shards) != 1 {
		fmt.Println("DescribeStream:", err)
		return 1
	}
	shard := ds.StreamDescription.Shards[0].ShardId
	counter := make([]int64, writers)

	for round := 1; round <= rounds; round++ {
		var stop atomic.Bool
		var wg sync.WaitGroup
		var acked atomic.Int64
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for !stop.Load() {
					counter[w]++
					_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl), Item: map[string]types.AttributeValue{
						"k": &types.AttributeValueMemberS{Value: fmt.Sprint("w", w)},
						"n": &types.AttributeValueMemberN{Value: strconv.FormatInt(counter[w], 10)},
					}})
					if err != nil {
						return // the kill
					}
					acked.Add(1)
				}
			}(w)
		}
		// The stream reader: every record it is served, by sequence number.
		served := map[string]seen{}
		var lastSeq string
		var mu sync.Mutex
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: shard, ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon}
			it, err := sc.GetShardIterator(ctx, in)
			if err != nil {
				return
			}
			iter := it.ShardIterator
			for !stop.Load() && iter != nil {
				r, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
				if err != nil {
					return
				}
				mu.Lock()
				for _, rec := range r.Records {
					d := rec.Dynamodb
					seq := aws.ToString(d.SequenceNumber)
					served[seq] = seen{d.Keys["k"].(*stypes.AttributeValueMemberS).Value, d.NewImage["n"].(*stypes.AttributeValueMemberN).Value}
					lastSeq = seq
				}
				mu.Unlock()
				iter = r.NextShardIterator
			}
		}()
		// The consistent reader: the highest n GetItem returned, per key.
		readMax := make([]int64, writers)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				w := i % writers
				g, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tbl), ConsistentRead: aws.Bool(true),
					Key: map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: fmt.Sprint("w", w)}}})
				if err != nil {
					return
				}
				if v, ok := g.Item["n"].(*types.AttributeValueMemberN); ok {
					n, _ := strconv.ParseInt(v.Value, 10, 64)
					mu.Lock()
					readMax[w] = max(readMax[w], n)
					mu.Unlock()
				}
			}
		}()
		time.Sleep(before)
		srv.kill()
		stop.Store(true)
		wg.Wait()
		if err := srv.start(); err != nil {
			fmt.Println("restart:", err)
			return 1
		}
		// What survived: the whole shard again, and every key.
		durable := map[string]seen{}
		it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: shard, ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
		if err != nil {
			fmt.Println("GetShardIterator:", err)
			return 1
		}
		for iter := it.ShardIterator; iter != nil; {
			r, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
			if err != nil {
				fmt.Println("GetRecords:", err)
				return 1
			}
			for _, rec := range r.Records {
				d := rec.Dynamodb
				durable[aws.ToString(d.SequenceNumber)] = seen{d.Keys["k"].(*stypes.AttributeValueMemberS).Value, d.NewImage["n"].(*stypes.AttributeValueMemberN).Value}
			}
			if len(r.Records) == 0 {
				break // the open shard's end
			}
			iter = r.NextShardIterator
		}
		bad := 0
		for seq, s := range served {
			if d, ok := durable[seq]; !ok || d != s {
				bad++
				if bad <= 5 {
					fmt.Printf("round %d: stream record %s was served before the SIGKILL as %s n=%s; after the restart it is %v (present %v)\n", round, seq, s.key, s.n, d, ok)
				}
			}
		}
		for w := 0; w < writers; w++ {
			g, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tbl), ConsistentRead: aws.Bool(true),
				Key: map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: fmt.Sprint("w", w)}}})
			if err != nil {
				fmt.Println("GetItem:", err)
				return 1
			}
			n, _ := strconv.ParseInt(g.Item["n"].(*types.AttributeValueMemberN).Value, 10, 64)
			if n < readMax[w] {
				bad++
				fmt.Printf("round %d: key w%d: a consistent GetItem returned n=%d before the SIGKILL; after the restart it is n=%d\n", round, w, readMax[w], n)
			}
			counter[w] = max(counter[w], n) // go on from what survived
		}
		fmt.Printf("round %d: %d puts acknowledged, %d stream records served (last %s), %d after the restart; %d lost reads\n",
			round, acked.Load(), len(served), lastSeq, len(durable), bad)
		if bad > 0 {
			// One more change after the restart: where does its record go?
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(tbl), Item: map[string]types.AttributeValue{
				"k": &types.AttributeValueMemberS{Value: "probe"}, "n": &types.AttributeValueMemberN{Value: "1"}}}); err == nil {
				durableLast := ""
				for seq := range durable {
					if seqLess(durableLast, seq) {
						durableLast = seq
					}
				}
				it, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: shard,
					ShardIteratorType: stypes.ShardIteratorTypeAfterSequenceNumber, SequenceNumber: aws.String(durableLast)})
				if err == nil {
					if r, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator}); err == nil && len(r.Records) > 0 {
						seq := aws.ToString(r.Records[0].Dynamodb.SequenceNumber)
						verdict := "gets it"
						if !seqLess(lastSeq, seq) {
							verdict = "SKIPS it"
						}
						fmt.Printf("round %d: a PutItem after the restart gets stream sequence number %s; before the kill the reader was served up to %s: a consumer resuming AFTER_SEQUENCE_NUMBER %s %s\n",
							round, seq, lastSeq, lastSeq, verdict)
					}
				}
			}
			fmt.Println("BUG REPRODUCED: a read returned a change that the SIGKILL then lost")
			return 1
		}
	}
	fmt.Println("not reproduced")
	return 0
}

// seqLess compares decimal sequence numbers ("" first).
func seqLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
