package io.github.sluice.servlet;

import jakarta.servlet.ServletContext;
import java.net.URI;

/** A started container on a random port of 127.0.0.1. */
interface RunningServer extends AutoCloseable {

    /** @return the base URI, e.g. {@code http://127.0.0.1:41234} */
    URI base();

    /** @return the deployed context */
    ServletContext context();

    /** @param path a path starting with {@code /} @return the absolute URI */
    default URI uri(String path) {
        return base().resolve(path);
    }

    /** Stops the container. */
    @Override
    void close();
}
