/**
 * The Jakarta Servlet adapter: {@link io.github.sluice.servlet.SluiceFilter} applies Sluice
 * policies to the requests of a Servlet 6.0 web application (Tomcat 10.1 and 11, Jetty 12 ee10,
 * any Jakarta EE 10 container). It translates the request into a
 * {@link io.github.sluice.request.RequestView}, writes what the {@link io.github.sluice.http.Verdict}
 * says, delays shaped requests and releases concurrency permits when the response completes;
 * every decision is made in {@code io.github.sluice.http}. See {@code docs/servlet.md}.
 */
package io.github.sluice.servlet;
