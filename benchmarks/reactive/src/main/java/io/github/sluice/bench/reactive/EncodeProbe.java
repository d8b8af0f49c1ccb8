package io.github.sluice.bench.reactive;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponse;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.LongAdder;
import reactor.netty.NettyPipeline;

/**
 * Times the server's encoding of each response head, in the CPU time of the event loop that
 * writes it: an outbound handler just in front of Reactor Netty's HTTP codec reads the thread's
 * CPU clock before it hands the response (status line and header fields, and the body if it comes
 * in the same message) to the codec, and after the codec has encoded it into bytes and queued
 * them (the write; the flush, the system call, comes later and is not in it). Beside {@link Probe}:
 * the stage holds Sluice storing its fields, this holds the server encoding them, which happens
 * behind the stage, where the handler's and the socket's CPU (several microseconds, varying by
 * as much from round to round) hide it. With minus without the filter, paired within a round, it
 * is the encoding of the fields the filter added. The readings cost the same with any stage.
 */
@ChannelHandler.Sharable
final class EncodeProbe extends ChannelOutboundHandlerAdapter {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final LongAdder NANOS = new LongAdder();
    private static final LongAdder COUNTED = new LongAdder();

    static final EncodeProbe INSTANCE = new EncodeProbe();

    private EncodeProbe() {
    }

    /**
     * Puts the probe in front of the channel's HTTP codec.
     *
     * @throws IllegalStateException if the pipeline has no codec yet
     */
    static void install(ChannelPipeline pipeline) {
        if (pipeline.get(NettyPipeline.HttpCodec) == null) {
            throw new IllegalStateException("no HTTP codec in " + pipeline.names());
        }
        pipeline.addAfter(NettyPipeline.HttpCodec, "bench.encodeProbe", INSTANCE);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (!(msg instanceof HttpResponse)) {
            ctx.write(msg, promise);
            return;
        }
        long t0 = THREADS.getCurrentThreadCpuTime();
        ctx.write(msg, promise);
        NANOS.add(THREADS.getCurrentThreadCpuTime() - t0);
        COUNTED.increment();
    }

    static void reset() {
        NANOS.reset();
        COUNTED.reset();
    }

    /** @return the encoding's CPU per response head, ns; NaN if no response was timed */
    static double ns() {
        long n = COUNTED.sum();
        return n == 0 ? Double.NaN : (double) NANOS.sum() / n;
    }
}
