package com.foo;

/** A declared business exception with a field of its own. */
public class BizException extends RuntimeException {
  public int code;

  public BizException() {}

  public BizException(String message, int code) {
    super(message);
    this.code = code;
  }
}
