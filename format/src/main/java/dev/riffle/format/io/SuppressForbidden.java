package dev.riffle.format.io;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Exempts one method or class from the build's forbidden-API check (the root pom's forbiddenapis
 * execution); {@link #reason()} says why the API is needed there.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.TYPE})
public @interface SuppressForbidden {
  String reason();
}
