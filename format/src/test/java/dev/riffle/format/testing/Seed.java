package dev.riffle.format.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the {@code long} parameter that receives the test's seed from {@link SeedExtension}, in a
 * test method or a {@code @BeforeEach}/{@code @AfterEach} method of a class registered with
 * {@code @ExtendWith(SeedExtension.class)}.
 */
@Documented
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
public @interface Seed {}
