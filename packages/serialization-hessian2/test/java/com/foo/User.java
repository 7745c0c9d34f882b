package com.foo;

/** The spec's example POJO: hessian-lite writes its fields as `age, name`, Caucho as `name, age`. */
public class User implements java.io.Serializable {
  public String name;
  public int age;

  public User() {}

  public User(String name, int age) {
    this.name = name;
    this.age = age;
  }
}
