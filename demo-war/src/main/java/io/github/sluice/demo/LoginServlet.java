package io.github.sluice.demo;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code POST /servlet/login}: a login that knows nothing about rate limiting. The password comes
 * as a form field or a query parameter {@code password}: {@code open-sesame} answers 200, anything
 * else (or none) 401. The Sluice filter's {@code login} policy in {@code web.xml} counts only the
 * 401s ({@code count=401}): three wrong passwords per minute per client address, after which every
 * request from that address is refused with 429 until the window ends, whatever its password.
 */
public final class LoginServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** The demo's only right password. */
    static final String PASSWORD = "open-sesame";

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/plain; charset=utf-8");
        if (PASSWORD.equals(request.getParameter("password"))) {
            response.getWriter().write("Welcome.\n");
            return;
        }
        response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
        response.setHeader("WWW-Authenticate", "Form realm=\"sluice-demo\"");
        response.getWriter().write("Wrong password.\n");
    }
}
