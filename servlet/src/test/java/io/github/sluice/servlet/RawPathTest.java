package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Recovering the path from a raw request URI, as a container would decode it. */
class RawPathTest {

    @Test
    void of_removesParametersThenDecodes_likeTheContainers() {
        assertEquals("/api/login", RawPath.of("/api;a=b/login;jsessionid=x", ""));
        assertEquals("/api/login;x", RawPath.of("/api/login%3Bx", ""), "an encoded ';' is data, not a parameter");
        assertEquals("/api/login/", RawPath.of("/api/login%2F", ""));
        assertEquals("/api/x/../login", RawPath.of("/api/x/%2e%2e/login", ""), "dot segments are left to Match");
        assertEquals("//api/login", RawPath.of("//api/login", ""));
        assertEquals("/caf\u00e9", RawPath.of("/caf%C3%A9", ""));
        assertEquals("/login", RawPath.of("/log%69n;x=1", ""));
    }

    @Test
    void of_malformedEscapesAndUtf8_neverThrow() {
        assertEquals("/a%zz/b%", RawPath.of("/a%zz/b%", ""));
        assertEquals("/x\ufffd\ufffdlogin", RawPath.of("/x%c0%aflogin", ""), "an overlong '/' is not a '/'");
        assertEquals("/login\u0000", RawPath.of("/login%00", ""));
        assertEquals("/", RawPath.of(null, null));
        assertEquals("/", RawPath.of("", ""));
    }

    @Test
    void of_removesTheContextPath_howeverTheClientSpelledIt() {
        assertEquals("/login", RawPath.of("/app/login", "/app"));
        assertEquals("//login", RawPath.of("/app//login", "/app"));
        assertEquals("/login", RawPath.of("/%61pp/login", "/app"));
        assertEquals("/login", RawPath.of("/./app//login", "/app"), "canonical forms compared");
        assertEquals("/", RawPath.of("/app", "/app"));
        assertEquals("/apple/login", RawPath.of("/apple/login", "/app"), "not a context prefix: the whole path");
    }
}
