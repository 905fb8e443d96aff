package com.example.text

/** URL slugs: "Hello, World!" becomes "hello-world". */
object Slugs {
    private val separators = Regex("[^a-z0-9]+")

    fun slug(title: String): String = title.lowercase().replace(separators, "-").trimStart('-')
}
