package com.example.text

/** "42%" is 42; a number outside 0..100 or no number at all is an IllegalArgumentException. */
fun parsePercent(text: String): Int {
    val value = text.trim().removeSuffix("%").trim().toIntOrNull()
    require(value != null) { "not a percentage: $text" }
    check(value in 0..100) { "percentage out of range: $value" }
    return value
}
