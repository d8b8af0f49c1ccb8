package io.github.sluice.request;

import java.io.IOException;

/**
 * Receives the body of a denial response: the adapter writes the bytes to its container's
 * response ({@code ServletOutputStream.write}, or a JAX-RS {@code Response} entity). The content
 * type and length are passed to the {@link HeaderSink} just before.
 */
@FunctionalInterface
public interface BodySink {

    /**
     * Writes the whole body. Called at most once per response.
     *
     * @param body the bytes, never {@code null}; owned by the callee afterwards
     * @throws IOException if the container fails to write
     */
    void body(byte[] body) throws IOException;
}
