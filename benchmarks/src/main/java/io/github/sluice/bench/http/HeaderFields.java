package io.github.sluice.bench.http;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpGenerator;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.util.BufferUtil;

/**
 * What the container spends on two more header fields in a response: Jetty's own
 * {@link HttpGenerator} writing the header block of {@link HelloServlet}'s response (status line,
 * {@code Content-Type}, {@code Content-Length}, {@code Server}, {@code Date}) into a buffer, with
 * and without Sluice's {@code RateLimit-Policy} and {@code RateLimit} fields (added to the
 * response's fields each time, as a filter does), on the benchmark thread's CPU clock, in
 * interleaved rounds. The difference is the cost of carrying and serializing the two fields,
 * which happens when the response is committed, outside the limiter's own code.
 */
final class HeaderFields {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Responses per candidate and round. */
    static final int BATCH = 200_000;

    private final HttpGenerator generator = new HttpGenerator();
    private final ByteBuffer header = ByteBuffer.allocate(1024);
    private long bytes;

    private HeaderFields() {
    }

    /** One response's header block; returns its length in bytes. */
    private int write(boolean withFields) throws IOException {
        HttpFields.Mutable fields = HttpFields.build();
        fields.put(HttpHeader.CONTENT_TYPE, "text/plain");
        fields.put(HttpHeader.SERVER, "Jetty(12.1)");
        fields.put(HttpHeader.DATE, "Tue, 25 Nov 2026 01:00:00 GMT");
        if (withFields) {
            fields.add("RateLimit-Policy", LocalJetty.POLICY);
            fields.add("RateLimit", LocalJetty.LIMIT);
        }
        generator.reset();
        BufferUtil.clear(header); // empty in Jetty's convention: position = limit = 0
        HttpGenerator.Result result = generator.generateResponse(
                new MetaData.Response(200, null, HttpVersion.HTTP_1_1, fields, 6), false, header, null, null, false);
        if (result != HttpGenerator.Result.FLUSH) {
            throw new IllegalStateException("the header block was not written: " + result);
        }
        return header.remaining();
    }

    /**
     * @param rounds measured rounds
     * @return per round, {@code {ns per response without, ns per response with, bytes without,
     *     bytes with}}
     * @throws IOException never (the buffer is large enough)
     */
    static double[][] measure(int rounds) throws IOException {
        HeaderFields h = new HeaderFields();
        for (int w = 0; w < 10; w++) {
            h.batch(false);
            h.batch(true);
        }
        double[][] out = new double[rounds][];
        for (int r = 0; r < rounds; r++) {
            boolean first = r % 2 == 0;
            double a = h.batch(first);
            double b = h.batch(!first);
            out[r] = new double[] {first ? b : a, first ? a : b, h.write(false), h.write(true)};
        }
        return out;
    }

    private double batch(boolean withFields) throws IOException {
        long before = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < BATCH; i++) {
            bytes += write(withFields);
        }
        return (THREADS.getCurrentThreadCpuTime() - before) / (double) BATCH;
    }
}
