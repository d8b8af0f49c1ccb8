package io.github.sluice.redis.internal;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Writes the Redis protocol (RESP) straight into the client's output buffer: array headers, and
 * bulk strings from bytes prepared once or from numbers, without building a string or an array
 * per call. All methods are stateless and thread-safe.
 */
public final class Resp {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] MIN = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);

    private Resp() {
    }

    /**
     * Writes {@code *<count>\r\n}.
     *
     * @param buf the buffer
     * @param count the number of elements
     */
    public static void array(ByteBuf buf, int count) {
        buf.writeByte('*');
        digits(buf, count);
        buf.writeBytes(CRLF);
    }

    /**
     * Writes a bulk string: {@code $<length>\r\n<bytes>\r\n}.
     *
     * @param buf the buffer
     * @param bytes the string's bytes
     */
    public static void bulk(ByteBuf buf, byte[] bytes) {
        buf.writeByte('$');
        digits(buf, bytes.length);
        buf.writeBytes(CRLF);
        buf.writeBytes(bytes);
        buf.writeBytes(CRLF);
    }

    /**
     * Writes a bulk string made of two parts, e.g. a key's fixed head and its hash tag.
     *
     * @param buf the buffer
     * @param head the first part
     * @param tail the second part
     */
    public static void bulk(ByteBuf buf, byte[] head, byte[] tail) {
        buf.writeByte('$');
        digits(buf, head.length + tail.length);
        buf.writeBytes(CRLF);
        buf.writeBytes(head);
        buf.writeBytes(tail);
        buf.writeBytes(CRLF);
    }

    /**
     * Writes a bulk string's header, {@code $<length>\r\n}: the caller writes its bytes and the
     * closing {@code \r\n}.
     *
     * @param buf the buffer
     * @param length the string's length in bytes
     */
    public static void header(ByteBuf buf, int length) {
        buf.writeByte('$');
        digits(buf, length);
        buf.writeBytes(CRLF);
    }

    /**
     * Writes an ASCII string as a bulk string, without encoding it to an array first.
     *
     * @param buf the buffer
     * @param ascii the string, ASCII only
     */
    public static void bulk(ByteBuf buf, String ascii) {
        buf.writeByte('$');
        digits(buf, ascii.length());
        buf.writeBytes(CRLF);
        buf.writeCharSequence(ascii, StandardCharsets.US_ASCII);
        buf.writeBytes(CRLF);
    }

    /**
     * Writes a number as a bulk string, in decimal, as Redis expects arguments.
     *
     * @param buf the buffer
     * @param value the number
     */
    public static void bulk(ByteBuf buf, long value) {
        buf.writeByte('$');
        digits(buf, length(value));
        buf.writeBytes(CRLF);
        digits(buf, value);
        buf.writeBytes(CRLF);
    }

    /**
     * Encodes a bulk string once, for arguments that never change (an algorithm's parameters).
     *
     * @param text the string, ASCII
     * @return its complete RESP encoding
     */
    public static byte[] encoded(String text) {
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        return ("$" + b.length + "\r\n" + text + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @param value a number
     * @return how many characters its decimal form has, the sign included
     */
    static int length(long value) {
        if (value == Long.MIN_VALUE) {
            return MIN.length;
        }
        int n = value < 0 ? 2 : 1;
        long v = Math.abs(value);
        while (v >= 10) {
            v /= 10;
            n++;
        }
        return n;
    }

    private static void digits(ByteBuf buf, long value) {
        if (value == Long.MIN_VALUE) {
            buf.writeBytes(MIN);
            return;
        }
        if (value < 0) {
            buf.writeByte('-');
            value = -value;
        }
        long div = 1;
        while (value / div >= 10) {
            div *= 10;
        }
        while (div > 0) {
            buf.writeByte((int) ('0' + value / div % 10));
            div /= 10;
        }
    }
}
