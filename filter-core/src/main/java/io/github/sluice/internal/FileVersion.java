package io.github.sluice.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One version of a watched file as read (the {@code config} file's watch, the contract limits of
 * {@code override=file:}): its bytes, size and SHA-256. Two reads are the same
 * version when their sizes and hashes are equal (and, to leave no doubt, their bytes).
 * Immutable.
 */
public final class FileVersion {

    private final byte[] bytes;
    private final byte[] sha256;

    /** @param bytes what was read; copied */
    public FileVersion(byte[] bytes) {
        this.bytes = bytes.clone();
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            // Every Java platform must provide SHA-256 (MessageDigest's Javadoc).
            throw new IllegalStateException(e);
        }
    }

    /** @return the size in bytes */
    public int size() {
        return bytes.length;
    }

    /** @return the text, decoded as UTF-8 */
    public String text() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * A write cut in the middle of a line leaves a last line without its line end; a complete
     * properties file ends with one (as editors write it).
     *
     * @return whether the last byte is {@code \n} or {@code \r}
     */
    public boolean endsWithLineEnd() {
        return bytes.length > 0 && (bytes[bytes.length - 1] == '\n' || bytes[bytes.length - 1] == '\r');
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileVersion v && v.bytes.length == bytes.length && Arrays.equals(v.sha256, sha256)
                && Arrays.equals(v.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(sha256);
    }

    /** @return e.g. {@code 245 bytes, sha256 1a2b3c4d5e6f}: enough to tell versions apart in a log */
    @Override
    public String toString() {
        return bytes.length + " bytes, sha256 " + HexFormat.of().formatHex(sha256, 0, 6);
    }
}
