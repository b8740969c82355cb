-- nothing but comments; a semicolon inside one ; does not split
/* block ; comment */
